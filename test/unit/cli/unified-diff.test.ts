import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addedLines, unifiedDiff } from '../../../src/cli/output/unified-diff.js';

/**
 * Applies a unified diff the way `patch` does, line numbers included, so the hunks are checked exactly; a
 * `\ No newline at end of file` marker says the line before it (on its side) ends the file without one.
 */
function applyPatch(before: string, patch: string): string {
  const source = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const sourceBare = before !== '' && !before.endsWith('\n');
  const out: string[] = [];
  let bare = false;
  let at = 0;
  const lines = patch.replace(/\n$/, '').split('\n').slice(2);
  for (let i = 0; i < lines.length; i++) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[i] as string);
    assert.ok(header, `hunk header expected, got ${lines[i]}`);
    const aStart = Number(header[1]);
    const aCount = Number(header[2]);
    const from = aCount === 0 ? aStart : aStart - 1;
    while (at < from) out.push(source[at++] as string);
    let last = '';
    while (i + 1 < lines.length && !(lines[i + 1] as string).startsWith('@@')) {
      const line = lines[++i] as string;
      const text = line.slice(1);
      if (line[0] === '\\') {
        if (last !== '-') bare = true;
        continue;
      }
      last = line[0] as string;
      if (line[0] === '+') out.push(text);
      else {
        assert.equal(source[at], text, 'context and removed lines match the source');
        at++;
        if (line[0] === ' ') out.push(text);
      }
    }
  }
  if (at < source.length) bare = sourceBare;
  while (at < source.length) out.push(source[at++] as string);
  return out.length === 0 ? '' : `${out.join('\n')}${bare ? '' : '\n'}`;
}

const text = fc.array(fc.constantFrom('a', 'b', 'c', '', '- item', '# T'), { maxLength: 30 }).map((lines) => lines.join('\n'));

test('a unified diff applied to the old text gives the new text byte for byte, for any two texts', () => {
  fc.assert(
    fc.property(text, text, (before, after) => {
      const patch = unifiedDiff(before, after, { from: 'a', to: 'b' });
      // Byte for byte: a final newline added or taken away is a change, and the patch makes it.
      assert.equal(patch === '', before === after);
      assert.equal(applyPatch(before, patch), after);
    }),
    { numRuns: 500 },
  );
});

test('the diff of a one-line addition shows headers, a hunk with context, and the added line', () => {
  const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
  const after = 'one\ntwo\nthree\nfour\nNEW\nfive\nsix\nseven\n';
  assert.equal(unifiedDiff(before, after, { from: 'x (local)', to: 'x (after sync)' }), '--- x (local)\n+++ x (after sync)\n@@ -2,6 +2,7 @@\n two\n three\n four\n+NEW\n five\n six\n seven\n');
  assert.deepEqual(addedLines(before, after), ['NEW']);
  assert.equal(unifiedDiff(before, before, { from: 'a', to: 'b' }), '');
});
