import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameMarkdown } from '../../../src/markdown/index.js';

test('a list item whose second line is lazy says what the indented one says (soak 736)', () => {
  assert.equal(sameMarkdown('1. sorted instead of using\nthe insertion order.\n1. next\n', '1. sorted instead of using\n   the insertion order.\n1. next\n'), true);
});

test('what reads cannot show still tells two bodies apart: a link address, code, emphasis, a line break moved', () => {
  assert.equal(sameMarkdown('See [docs](a.md).\n', 'See [docs](b.md).\n'), false);
  assert.equal(sameMarkdown('```js\nx\n```\n', '```js\ny\n```\n'), false);
  assert.equal(sameMarkdown('a *b* c\n', 'a b c\n'), false);
  assert.equal(sameMarkdown('one two\n', 'one\ntwo\n'), false);
});
