import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SharedState, StateEntry } from '../../../src/remote-state/state.js';
import type { RemoteStateStore } from '../../../src/remote-state/store.js';
import { sharedVersions } from '../../../src/sync/state/published-version.js';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';

const TEXT = '# Semver\n\nSee the spec.\n';
const entry: StateEntry = { p: 'semver.md', k: 'doc-1', n: null, h: 'hash-of-text', rb: 'blocks', m: '2026-11-02T09:04Z', o: 'created', a: 5, c: 10, w: 'other', l: 1 } as StateEntry;
const shared = { entries: new Map([[entry.p, entry]]), writes: new Map() } as unknown as SharedState;
/** The state as a run read it (when is not asked here). */
const read = (state: SharedState): { readonly state: SharedState } => ({ state });
const store = { sources: async (hashes: Set<string>) => new Map([...hashes].map((hash) => [hash, TEXT])) } as unknown as RemoteStateStore;

// Model seed 50013: another machine's record of this very text that says the document holds more than it
// (`l`: a hidden edit it saw) was taken for this machine's own, and never reached the decision.
test("a record of this very text saying the document holds more than it is news to a machine whose record says it does not", async () => {
  const version = await sharedVersions(store, read(shared)).published({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: false }, false);
  // A record without `hd` is a kbsync's from before it, which could not tell a hidden edit from a visible one taken in.
  assert.deepEqual(version, { text: TEXT, remoteBlocksHash: 'blocks', modifiedTime: '2026-11-02T09:04Z', exact: false, hidden: true, agreedAt: 5, path: 'semver.md' });
});

// Issue 44: a machine that took a colleague's visible edit in on a page with code (`hd: 0`) found no hidden edit;
// the other machine that takes its version was told of one all the same. `hd: 1`: its writer found one.
test('a record says whether the document holds a hidden edit its writer found (hd), or only what a visible edit taken in may carry', async () => {
  const asked = { docKey: 'doc-1', localHash: 'other-hash', lossyBase: false };
  const said = async (hd: 0 | 1) => (await sharedVersions(store, read({ entries: new Map([[entry.p, { ...entry, hd }]]), writes: new Map() } as unknown as SharedState)).published(asked, false))?.hidden;
  assert.equal(await said(0), false);
  assert.equal(await said(1), true);
});

test('to a machine whose record says so already (its own lossy record, say), it is no news', async () => {
  assert.equal(await sharedVersions(store, read(shared)).published({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: true }, false), undefined);
});

// merge.webEdits: a record that doubts only the formatting of a colleague's words (`f`) against one that doubts more.
test("a record doubting content is news to a machine that doubts only formatting; one doubting only formatting is none to a machine that doubts content", async () => {
  const content = await sharedVersions(store, read(shared)).published({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: true, formattingOnly: true }, false);
  assert.equal(content?.exact, false);
  assert.equal(content.formattingOnly, undefined, 'it doubts content');
  const formatting = { entries: new Map([[entry.p, { ...entry, f: 1 }]]), writes: new Map() } as unknown as SharedState;
  assert.equal(await sharedVersions(store, read(formatting)).published({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: true }, false), undefined);
  assert.equal((await sharedVersions(store, read(formatting)).published({ docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: false }, false))?.formattingOnly, true);
});

// State chaos seed 14: a CI job killed after its write, before its record; its ledger went with the checkout.
describe('a write announced by a run without a ledger', () => {
  const WRITTEN = '# Semver\n\nSee the *spec*, twice.\n';
  const exact: StateEntry = { ...entry, h: 'hash-of-text', rb: blocksHash(predictedBlocks('See the spec.\n')), l: undefined } as unknown as StateEntry;
  const sources = new Map([['hash-of-text', TEXT], ['hash-of-written', WRITTEN]]);
  const withWrite = (a: number) =>
    sharedVersions(
      { sources: async (hashes: Set<string>) => new Map([...hashes].map((hash) => [hash, sources.get(hash) ?? ''])) } as unknown as RemoteStateStore,
      read({ entries: new Map([[exact.p, exact]]), writes: new Map([['doc-1', { p: 'semver.md', k: 'doc-1', h: 'hash-of-written', a }]]) } as unknown as SharedState),
    );
  const record = { docKey: 'doc-1', localHash: 'hash-of-text', lossyBase: false };
  const written = blocksHash(predictedBlocks('# Semver\n\nSee the *spec*, twice.\n'));

  test('the document reads as its text: that text, exactly, with the minute after the announcement as the latest its time can bear', async () => {
    const at = Date.parse('2026-11-02T09:04:30Z');
    assert.deepEqual(await withWrite(at).published(record, false, written), { text: WRITTEN, remoteBlocksHash: written, modifiedTime: '2026-11-02T09:04Z', exact: true, agreedAt: at, path: 'semver.md' });
  });

  test('the document still reads as the entry (the run died before the write): the entry stands', async () => {
    const version = await withWrite(Date.parse('2026-11-02T09:04:30Z')).published(record, false, exact.rb);
    assert.equal(version?.text, TEXT);
  });

  test('an announcement older than the entry is no news, and one whose text the document does not read as says nothing', async () => {
    assert.equal((await withWrite(1).published(record, false, written))?.text, TEXT);
    assert.equal((await withWrite(Date.parse('2026-11-02T09:04:30Z')).published(record, false, blocksHash(predictedBlocks('Other words.\n'))))?.text, TEXT);
  });
});
