import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headingAnchors } from '../../../src/links/anchors.js';
import { forgetParses, forgetParseTrees, parseCounts, parseMarkdown } from '../../../src/markdown/parse.js';

test('parseMarkdown parses a text once while it is recent, and never answers one text with the tree of another', () => {
  const before = { ...parseCounts };
  const a = parseMarkdown('# A\n\nfirst\n');
  const again = parseMarkdown('# A\n\nfirst\n');
  const b = parseMarkdown('# A\n\nsecond\n');
  assert.equal(again, a, 'the same text gets the tree already made');
  assert.notEqual(b, a);
  assert.equal((b.children[1] as { children: { value: string }[] }).children[0]?.value, 'second');
  assert.equal(parseCounts.parsed - before.parsed, 2);
  assert.equal(parseCounts.reused - before.reused, 1);
});

// A megabyte: four times the recent trees' budget of characters (src/markdown/parse.ts), as the test once gave
// the budget of a megabyte it had then.
test('the recent trees are bounded: after a megabyte of other texts the first is parsed anew', () => {
  const first = parseMarkdown('# bounded\n\ntext\n');
  for (let i = 0; i < 35; i += 1) parseMarkdown(`# filler ${i}\n\n${'word '.repeat(6000)}\n`);
  const before = parseCounts.parsed;
  const later = parseMarkdown('# bounded\n\ntext\n');
  assert.equal(parseCounts.parsed - before, 1);
  assert.notEqual(later, first);
  assert.deepEqual(later, first, 'and reads the same');
});

test('forgetParses drops every recent tree', () => {
  const first = parseMarkdown('# forget me\n');
  forgetParses();
  const before = parseCounts.parsed;
  assert.notEqual(parseMarkdown('# forget me\n'), first);
  assert.equal(parseCounts.parsed - before, 1);
});

test('a run drops its trees but keeps what it learnt of them: the next run asks again without parsing', () => {
  const text = '# kept *facts*\n\n[a](#kept-facts)\n';
  const first = headingAnchors(text);
  forgetParseTrees();
  const before = parseCounts.parsed;
  assert.equal(headingAnchors(text), first);
  assert.equal(parseCounts.parsed - before, 0, 'the anchors come from what was learnt');
  assert.notEqual(parseMarkdown(text), undefined);
  assert.equal(parseCounts.parsed - before, 1, 'the tree itself was dropped');
  forgetParses();
  headingAnchors(text);
  assert.equal(parseCounts.parsed - before, 2, 'forgetParses drops the facts too');
});
