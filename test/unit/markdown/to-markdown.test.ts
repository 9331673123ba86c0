import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Block } from '../../../src/model/blocks.js';
import { blocksToMarkdown, contentKey, contentOfBlock, hasPlaceholders, normaliseText, placeholdersBeyond, toPushMarkdown } from '../../../src/markdown/index.js';
import { documentParts, join } from './helpers/documents.js';
import { newBlock, reindex, simulateServiceRead } from './helpers/service-read.js';

const keys = (blocks: readonly Block[]): string[] => blocks.map((block) => contentKey(contentOfBlock(block)));
/** Text with every kind of character Markdown could read as syntax. */
const trickyText = fc.string({ unit: fc.constantFrom(...'ab 1.)#*_-+=>`~|[]()!<&\\:\n\t'.split(''), '10.', '&amp;', 'www.x.io', 'http://', 'a@b.co', '<!--', '---', '***', '\u00a0') });

describe('blocksToMarkdown', () => {
  test('service text stays literal: a title like `*` or `# x` reads back as the same text and kind', () => {
    const blocks = reindex([
      newBlock({ type: 'heading', level: 2, text: '# x *y* #' }),
      newBlock({ type: 'paragraph', text: '*' }),
      newBlock({ type: 'paragraph', text: '1. not a list\n- nor this\n---' }),
      newBlock({ type: 'paragraph', text: 'a | b\n--- | ---' }),
      newBlock({ type: 'paragraph', text: '<b>not html</b> &amp; [not](a link) `nor code`' }),
      newBlock({ type: 'unorderedList', listId: 'l', level: 1, text: '[ ] not a task' }),
    ]);
    const markdown = blocksToMarkdown(blocks);
    assert.match(markdown, /^## \\# x \\\*y\\\* \\#\n/);
    assert.deepEqual(keys(simulateServiceRead(markdown)), keys(blocks));
  });

  test('any text round-trips through paragraphs, headings, list items, quotes and table cells', () => {
    fc.assert(
      fc.property(trickyText, (text) => {
        const cells = [['h', text], [text, 'x']];
        const blocks = reindex([
          newBlock({ type: 'heading', level: 3, text }),
          newBlock({ type: 'paragraph', text }),
          newBlock({ type: 'orderedList', listId: 'o', level: 1, text }),
          newBlock({ type: 'blockquote', text }),
          newBlock({ type: 'table', cols: 2, rows: 2, cells }),
        ]);
        const read = simulateServiceRead(blocksToMarkdown(blocks), { tableCells: true });
        const expected = blocks.filter((block) => block.type !== 'paragraph' || normaliseText(text) !== '');
        assert.deepEqual(keys(read), keys(expected));
        const table = read.find((block) => block.type === 'table');
        assert.deepEqual(table?.type === 'table' ? table.cells?.map((row) => row.map(normaliseText)) : undefined, cells.map((row) => row.map(normaliseText)));
      }),
      { numRuns: 600 },
    );
  });

  test('nested, numbered and adjacent lists keep their items, levels and separation', () => {
    const blocks = reindex([
      newBlock({ type: 'unorderedList', listId: 'a', level: 0, text: 'one' }),
      newBlock({ type: 'orderedList', listId: 'b', level: 1, text: 'one.one' }),
      newBlock({ type: 'orderedList', listId: 'b', level: 1, text: 'one.two' }),
      newBlock({ type: 'unorderedList', listId: 'c', level: 2, text: 'deep' }),
      newBlock({ type: 'unorderedList', listId: 'a', level: 0, text: 'two' }),
      newBlock({ type: 'unorderedList', listId: 'd', level: 0, text: 'other list' }),
    ]);
    const markdown = blocksToMarkdown(blocks);
    assert.equal(markdown, '- one\n  1. one.one\n  2. one.two\n     - deep\n- two\n* other list\n');
    const read = simulateServiceRead(markdown);
    assert.deepEqual(
      read.map((b) => (b.type === 'unorderedList' || b.type === 'orderedList' ? [b.type, b.text, b.level] : [])),
      [['unorderedList', 'one', 1], ['orderedList', 'one.one', 2], ['orderedList', 'one.two', 2], ['unorderedList', 'deep', 3], ['unorderedList', 'two', 1], ['unorderedList', 'other list', 1]],
    );
    const listIds = read.map((b) => ('listId' in b ? b.listId : ''));
    assert.equal(listIds[0], listIds[4]);
    assert.notEqual(listIds[4], listIds[5]);
  });

  test('tables come from cells, else a placeholder; unknown blocks are visible placeholders', () => {
    const markdown = blocksToMarkdown(
      reindex([
        newBlock({ type: 'table', cols: 2, rows: 2, cells: [['a', 'b|c'], ['1']] }),
        newBlock({ type: 'table', cols: 3, rows: 4 }),
        newBlock({ type: 'unknown', kind: 'code' }),
      ]),
    );
    assert.match(markdown, /^\| a \| b\\\|c \|\n\| --- \| --- \|\n\| 1 \| \|\n/);
    assert.match(markdown, /<!-- kbsync: a table \(4 rows × 3 columns\)/);
    assert.match(markdown, /<!-- kbsync: a block the service does not expose \(code, image or other\) is here; edit it in the web editor -->/);
    assert.equal(hasPlaceholders(markdown), true);
  });

  test('a text holds placeholders beyond a base only where the base has fewer of that one', () => {
    const code = blocksToMarkdown(reindex([newBlock({ type: 'unknown', kind: 'code' })]));
    const table = blocksToMarkdown(reindex([newBlock({ type: 'table', cols: 3, rows: 4 })]));
    const source = '# Guide\n\n```sh\nnpm test\n```\n';
    const plain = `# Guide\n\n${code}\n`;
    // The soak's case: the base has the code where the version has kbsync's stand-in.
    assert.equal(placeholdersBeyond(plain, source), true);
    // Both read plainly, the version with a comment and a paragraph more: nothing stands where source stood.
    assert.equal(placeholdersBeyond(`# Guide %%note%%\n\n${code}\n\nNew words.\n`, plain), false);
    assert.equal(placeholdersBeyond(source, plain), false);
    // Counted one by one, and each kind apart.
    assert.equal(placeholdersBeyond(`${plain}\n${code}\n`, plain), true);
    assert.equal(placeholdersBeyond(`# Guide\n\n${table}\n`, plain), true);
    assert.equal(placeholdersBeyond(plain, `${plain}\n${table}\n`), false);
  });

  test('steady state for new remote documents: Markdown of a read reads back the same and renders the same', () => {
    fc.assert(
      fc.property(documentParts, fc.boolean(), (parts, levelsFromZero) => {
        const first = simulateServiceRead(join(parts), { levelsFromZero, tableCells: true });
        const markdown = blocksToMarkdown(first);
        const second = simulateServiceRead(toPushMarkdown(markdown), { levelsFromZero, tableCells: true });
        assert.deepEqual(keys(second), keys(first));
        assert.equal(blocksToMarkdown(second), markdown);
      }),
      { numRuns: 300 },
    );
  });
});
