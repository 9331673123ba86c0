import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseBlock } from '../../../src/api/blocks.js';
import { rawBlockSchema, type RawBlock } from '../../../src/api/schemas.js';

const raw = (value: Record<string, unknown>): RawBlock => rawBlockSchema.parse({ id: 'b', index: 3, ...value });

void test('heading level as heading-N, a number or a numeric string', () => {
  for (const level of ['heading-3', 3, '3']) {
    assert.deepEqual(parseBlock(raw({ blockType: 'heading', heading: { level, text: 'T' } }), 0), { id: 'b', index: 3, type: 'heading', level: 3, text: 'T' });
  }
  assert.equal((parseBlock(raw({ blockType: 'heading', heading: { level: 'weird' } }), 0) as { level: number }).level, 1);
});

void test('list items: list info under the block-type object or at the top level, missing text is empty', () => {
  assert.deepEqual(parseBlock(raw({ blockType: 'unorderedList', unorderedList: { text: 'a', list: { listId: 'L1', level: 1 } } }), 0), {
    id: 'b', index: 3, type: 'unorderedList', text: 'a', listId: 'L1', level: 1,
  });
  assert.deepEqual(parseBlock(raw({ blockType: 'orderedList', list: { listId: 'L2', level: 0 } }), 0), {
    id: 'b', index: 3, type: 'orderedList', text: '', listId: 'L2', level: 0,
  });
});

void test('tables: rowSize or rolSize, cells when present', () => {
  assert.deepEqual(parseBlock(raw({ blockType: 'table', table: { colSize: 2, rowSize: 3 } }), 0), { id: 'b', index: 3, type: 'table', cols: 2, rows: 3 });
  assert.deepEqual(parseBlock(raw({ blockType: 'table', table: { colSize: 2, rolSize: 1, cells: [['a', null]] } }), 0), {
    id: 'b', index: 3, type: 'table', cols: 2, rows: 1, cells: [['a', '']],
  });
});

void test('quotes with missing text, unknown kinds keep their kind, index defaults to the position', () => {
  assert.deepEqual(parseBlock(raw({ blockType: 'blockquote' }), 0), { id: 'b', index: 3, type: 'blockquote', text: '' });
  for (const kind of ['unknown', 'callout', 'columns', 'code']) {
    assert.deepEqual(parseBlock(raw({ blockType: kind, [kind]: {} }), 0), { id: 'b', index: 3, type: 'unknown', kind });
  }
  assert.equal(parseBlock(rawBlockSchema.parse({ id: 'x', blockType: 'paragraph', paragraph: { text: 'p' } }), 7).index, 7);
});

void test('any block-shaped input parses to a valid Block without throwing', () => {
  fc.assert(
    // A kind named like one of the block's own fields (`id`, `index`) would overwrite that field in this test's input.
    fc.property(fc.string().filter((kind) => !['id', 'index', 'blockType', 'list'].includes(kind)), fc.jsonValue(), fc.jsonValue(), (blockType, inner, list) => {
      const block = parseBlock(raw({ blockType, [blockType]: inner, list }), 0);
      assert.equal(block.id, 'b');
      if ('text' in block) assert.equal(typeof block.text, 'string');
      if (block.type === 'heading') assert.ok(block.level >= 1 && block.level <= 6);
      if (block.type === 'table') assert.ok(Number.isInteger(block.rows) && Number.isInteger(block.cols));
    }),
  );
});
