import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SharedState, StateEntry } from '../../../src/remote-state/state.js';
import type { RemoteStateStore } from '../../../src/remote-state/store.js';
import { publishedVersions } from '../../../src/sync/published-version.js';

const TEXT = '# Semver\n\nSee the spec.\n';
const entry: StateEntry = { p: 'semver.md', k: 'doc-1', n: null, h: 'hash-of-text', rb: 'blocks', m: '2026-11-02T09:04Z', o: 'created', a: 5, c: 10, w: 'other', l: 1 } as StateEntry;
const shared = { entries: new Map([[entry.p, entry]]) } as unknown as SharedState;
const store = { sources: async (hashes: Set<string>) => new Map([...hashes].map((hash) => [hash, TEXT])) } as unknown as RemoteStateStore;

// Model seed 50013: another machine's record of this very text that says the document holds more than it
// (`l`: a hidden edit it saw) was taken for this machine's own, and never reached the decision.
test("a record of this very text saying the document holds more than it is news to a machine whose record says it does not", async () => {
  const version = await publishedVersions(store, shared)({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: false }, false);
  assert.deepEqual(version, { text: TEXT, remoteBlocksHash: 'blocks', modifiedTime: '2026-11-02T09:04Z', exact: false, agreedAt: 5, path: 'semver.md' });
});

test('to a machine whose record says so already (its own lossy record, say), it is no news', async () => {
  assert.equal(await publishedVersions(store, shared)({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: true }, false), undefined);
});
