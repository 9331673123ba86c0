import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { DocRecord, StateRecord } from '../../../src/remote-state/codec.js';
import { foldState, recordsOf } from '../../../src/remote-state/state.js';

const doc = (p: string, k: string, n: string | null, h = 'h'): DocRecord => ({ t: 'doc', p, k, n, h, rb: 'rb', m: '', o: n ? 'created' : 'linked' });

describe('folding the shared state', () => {
  test('the latest record of a path wins; a move (same document, new path) ends the old path; gone only ends its own document', () => {
    const state = foldState([doc('a.md', 'K1', 'N1'), doc('a.md', 'K1', null, 'h2'), doc('b.md', 'K2', 'N2'), doc('c.md', 'K2', null), { t: 'gone', p: 'a.md', k: 'OTHER' }]);
    assert.deepEqual([...state.entries.keys()].sort(), ['a.md', 'c.md']);
    assert.equal(state.entries.get('a.md')?.h, 'h2');
    assert.equal(state.entries.get('a.md')?.n, 'N1', "a writer that did not know the creation id does not erase it");
    assert.equal(state.entries.get('c.md')?.n, 'N2', 'the moved document keeps its creation id');
    assert.equal(foldState([doc('a.md', 'K1', 'N1'), { t: 'gone', p: 'a.md', k: 'K1' }]).entries.size, 0);
  });

  test('whatever order two writers append in: one path per document, one document per path, no creation id lost, and a compaction says the same', () => {
    const paths = fc.constantFrom('a.md', 'b.md', 'c.md', 'd/e.md');
    const keys = fc.constantFrom('K1', 'K2', 'K3', 'K4');
    const record: fc.Arbitrary<StateRecord> = fc.oneof(
      // A document has one creation id; a writer either knows it or does not.
      fc.tuple(paths, keys, fc.boolean()).map(([p, k, knows]) => doc(p, k, knows ? `N-${k}` : null)),
      fc.tuple(paths, keys).map(([p, k]): StateRecord => ({ t: 'gone', p, k })),
    );
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const state = foldState(records);
        const docKeys = [...state.entries.values()].map((entry) => entry.k);
        assert.equal(new Set(docKeys).size, docKeys.length, 'a document at two paths');
        for (const entry of state.entries.values()) {
          const known = records.find((r): r is DocRecord => r.t === 'doc' && r.k === entry.k && r.n !== null);
          if (known) assert.equal(entry.n, known.n, 'a creation id was lost');
        }
        assert.deepEqual(foldState(recordsOf(state)).entries, state.entries, 'the compacted records fold to the same state');
      }),
      { numRuns: 500 },
    );
  });
});
