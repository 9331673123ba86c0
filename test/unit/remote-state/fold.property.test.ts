import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Stamped } from '../../../src/remote-state/codec.js';
import type { DocRecord, StateRecord } from '../../../src/remote-state/records.js';
import { foldState } from '../../../src/remote-state/state.js';

const doc = (p: string, k: string, n: string | null, h = 'h'): DocRecord => ({ t: 'doc', p, k, n, h, rb: 'rb', m: '', o: n ? 'created' : 'linked' });
/** Records as one writer writes them, one batch each, its clock moving on. */
const inOrder = (records: readonly StateRecord[], w = 'w1', from = 1): Stamped[] => records.map((record, i) => ({ record, c: from + i, w, i: 0 }));
const entriesOf = (stamped: readonly Stamped[]) => [...foldState(stamped).entries].sort(([a], [b]) => (a < b ? -1 : 1));

describe('folding the shared state', () => {
  test('the latest record of a path wins; a move (same document, new path) ends the old path; gone only ends its own document', () => {
    const state = foldState(inOrder([doc('a.md', 'K1', 'N1'), doc('a.md', 'K1', null, 'h2'), doc('b.md', 'K2', 'N2'), doc('c.md', 'K2', null), { t: 'gone', p: 'a.md', k: 'OTHER' }]));
    assert.deepEqual([...state.entries.keys()].sort(), ['a.md', 'c.md']);
    assert.equal(state.entries.get('a.md')?.h, 'h2');
    assert.equal(state.entries.get('a.md')?.n, 'N1', 'a writer that did not know the creation id does not erase it');
    assert.equal(state.entries.get('c.md')?.n, 'N2', 'the moved document keeps its creation id');
    assert.equal(foldState(inOrder([doc('a.md', 'K1', 'N1'), { t: 'gone', p: 'a.md', k: 'K1' }])).entries.size, 0);
  });

  test('order comes from the stamps, not from where a record sits: an older record read later does not win', () => {
    const newer: Stamped = { record: doc('a.md', 'K1', 'N1', 'new'), c: 20, w: 'w2', i: 0 };
    const older: Stamped = { record: doc('a.md', 'K1', 'N1', 'old'), c: 10, w: 'w1', i: 0 };
    assert.equal(foldState([newer, older]).entries.get('a.md')?.h, 'new');
    assert.equal(foldState([older, newer]).entries.get('a.md')?.h, 'new');
    // The same clock: the writer id decides, the same way everywhere.
    const tie: Stamped = { ...older, c: 20 };
    assert.equal(foldState([newer, tie]).entries.get('a.md')?.h, foldState([tie, newer]).entries.get('a.md')?.h);
  });

  test('whatever order writers, compactions and crashes leave the records in: the same state, one path per document, no creation id lost, and a compaction says the same', () => {
    const paths = fc.constantFrom('a.md', 'b.md', 'c.md', 'd/e.md');
    const keys = fc.constantFrom('K1', 'K2', 'K3', 'K4');
    const record: fc.Arbitrary<StateRecord> = fc.oneof(
      // A document has one creation id; a writer either knows it or does not.
      fc.tuple(paths, keys, fc.boolean(), fc.constantFrom('h1', 'h2', 'h3')).map(([p, k, knows, h]) => doc(p, k, knows ? `N-${k}` : null, h)),
      fc.tuple(paths, keys).map(([p, k]): StateRecord => ({ t: 'gone', p, k })),
    );
    const stamped = fc.array(fc.record({ record, c: fc.integer({ min: 1, max: 40 }), w: fc.constantFrom('w1', 'w2', 'w3'), i: fc.nat(3) }), { maxLength: 30 });
    fc.assert(
      fc.property(stamped, fc.func(fc.integer()), (records, shuffleKey) => {
        // Duplicates of one stamp can only be copies of one token: keep the first of each.
        const unique = [...new Map(records.map((r) => [`${r.c}/${r.w}/${r.i}`, r])).values()];
        const shuffled = [...unique].sort((a, b) => shuffleKey(a.c * 100 + a.i) - shuffleKey(b.c * 100 + b.i));
        const state = foldState(unique);
        assert.deepEqual(entriesOf(shuffled), entriesOf(unique), 'the order records sit in changes nothing');
        const docKeys = [...state.entries.values()].map((entry) => entry.k);
        assert.equal(new Set(docKeys).size, docKeys.length, 'a document at two paths');
        for (const entry of state.entries.values()) {
          const known = unique.find((r) => r.record.t === 'doc' && r.record.k === entry.k && r.record.n !== null);
          if (known) assert.equal(entry.n, (known.record as DocRecord).n, 'a creation id was lost');
        }
        assert.deepEqual(entriesOf(state.live), entriesOf(unique), 'the compacted records fold to the same state');
        // A record appended after a compaction sorts against the copies as it would against the originals.
        const late: Stamped = { record: doc('a.md', 'K9', null, 'late'), c: 25, w: 'w9', i: 0 };
        assert.deepEqual(entriesOf([...state.live, late]), entriesOf([...unique, late]), 'a late record after a compaction');
      }),
      { numRuns: 500 },
    );
  });
});
