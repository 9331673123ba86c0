import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../../../src/log.js';
import type { StateRecord } from '../../../src/remote-state/codec.js';
import type { RemoteStateStore } from '../../../src/remote-state/store.js';
import { publishState } from '../../../src/sync/publish-state.js';
import { sampleDocument, tempLedger } from '../ledger/helpers.js';

/** A store that only records what it is asked to publish. */
function recordingStore(): { store: RemoteStateStore; published: StateRecord[][] } {
  const published: StateRecord[][] = [];
  const store = { publish: async (records: StateRecord[]) => void published.push(records) } as unknown as RemoteStateStore;
  return { store, published };
}

describe('publishState with kept summaries (the daemon)', () => {
  test('each push publishes exactly the rows written since, however often the unchanged rows were hashed before', async (t) => {
    const ledger = tempLedger(t);
    ledger.documents.keepSummaries();
    for (const n of [1, 2, 3]) ledger.documents.upsert(sampleDocument(n));
    const { store, published } = recordingStore();
    const publish = () => publishState({ ledger, store, logger: silentLogger, loaded: undefined, removed: new Map() });

    assert.deepEqual(await publish(), { records: 3, sources: 3 });
    assert.deepEqual(await publish(), { records: 0, sources: 0 }, 'nothing changed: nothing sent');

    ledger.documents.update(sampleDocument(2).path, { localHash: 'pushed-again', remoteModifiedTime: '2024-05-02 09:00' });
    assert.deepEqual(await publish(), { records: 1, sources: 1 });
    assert.deepEqual(published.at(-1)?.map((record) => ('p' in record ? record.p : undefined)), [sampleDocument(2).path]);
    assert.equal((published.at(-1)?.[0] as { h?: string } | undefined)?.h, 'pushed-again');

    // Only the modified time of our own write learnt: another machine needs nothing new.
    ledger.documents.update(sampleDocument(3).path, { remoteModifiedTime: '2024-05-02 09:01' });
    assert.deepEqual(await publish(), { records: 1, sources: 0 }, 'a record published with a modified time is republished when it changes');
    assert.deepEqual(await publish(), { records: 0, sources: 0 });
  });
});
