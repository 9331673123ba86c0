import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeLines } from '../../../src/markdown/merge-lines.js';

const RUNS = { numRuns: Number(process.env.KBSYNC_FC_RUNS ?? 200) };

/** A block's lines: a few words from a small set, so that both sides often touch the same or neighbouring lines. */
const lines = fc.array(fc.constantFrom<string>('alpha', 'beta', 'gamma delta', 'epsilon', 'zeta eta', ''), { minLength: 1, maxLength: 6 });
/** One side's edit of the base: each line kept, replaced or dropped, and a line now and then added. */
const edited = (base: readonly string[]): fc.Arbitrary<string[]> =>
  fc.array(fc.constantFrom('keep', 'keep', 'keep', 'change', 'drop', 'add'), { minLength: base.length, maxLength: base.length }).map((ops) =>
    base.flatMap((line, i) => {
      const op = ops[i];
      if (op === 'change') return [`${line} changed${i}`];
      if (op === 'drop') return [];
      if (op === 'add') return [line, `added${i}`];
      return [line];
    }),
  );

/** Our lines saved on another system: every line but the block's last (which ends in the gap after it) ends CRLF. */
const crlfLines = (words: readonly string[]): string => words.map((line, i) => (i < words.length - 1 ? `${line}\r` : line)).join('\n');

test("mergeLines: our line endings changed never decide a merge: the words merge as without them, and every line but the last ends as ours do", () => {
  fc.assert(
    fc.property(
      lines.chain((base) => fc.tuple(fc.constant(base), edited(base), edited(base))),
      ([base, ours, theirs]) => {
        const plain = mergeLines(base.join('\n'), ours.join('\n'), theirs.join('\n'));
        const merged = mergeLines(base.join('\n'), crlfLines(ours), theirs.join('\n'));
        if (plain === undefined) return assert.equal(merged, undefined, 'a clash of words stays a clash');
        assert.equal(merged?.replace(/\r(?=\n|$)/g, ''), plain, 'the same words as the merge without our line endings');
        // A side that changed no line's ending (ours kept no line, or none was CRLF) leaves the others' ends alone.
        if (!ours.some((line) => base.includes(line)) || ours.length < 2) return;
        assert.equal(merged, crlfLines(plain.split('\n')), 'our line endings on every line but the last');
      },
    ),
    RUNS,
  );
});

test('mergeLines: both sides changing the line endings of one block differently is a clash; alike, no clash', () => {
  assert.equal(mergeLines('a\r\nb\r\nc', 'a\nb\nc', 'a\r\nb\nc changed'), undefined);
  assert.equal(mergeLines('a\nb\nc', 'a\r\nb\r\nc', 'a\r\nb\r\nc changed'), 'a\r\nb\r\nc changed');
  assert.equal(mergeLines('a\nb\nc', 'a\r\nb\r\nc', 'a\nb changed\nc'), 'a\r\nb changed\r\nc');
});
