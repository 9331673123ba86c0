import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Clock } from '../../../src/emulator/clock.js';
import { markdownToBlocks } from '../../../src/emulator/markdown/to-blocks.js';
import { Operations } from '../../../src/emulator/operations.js';
import { IdGenerator } from '../../../src/emulator/random.js';
import { Store } from '../../../src/emulator/store/store.js';

const KINDS = new Set(['heading', 'paragraph', 'unorderedList', 'orderedList', 'blockquote', 'table', 'unknown']);

const line = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('# Head', '## Sub *em*', '- item', '  - nested', '1. one', '> quote', '```', 'code', '| a | b |', '|---|---|', '| 1 | 2 |', '---', '![i](x.png)', '<div>x</div>', 'plain **bold** text', ''),
);
const markdown = fc.array(line, { maxLength: 25 }).map((lines) => lines.join('\n'));
/** Markdown whose free text has no inline delimiters, so appending a word cannot re-pair emphasis. */
const plainMarkdown = fc
  .array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9 .,!?]{0,30}$/), line.filter((l) => !/[*_`[\]<>{}~|\\]/.test(l) || l.startsWith('#') || l.startsWith('```'))), { maxLength: 25 })
  .map((lines) => lines.join('\n'));

test('any Markdown converts to known block kinds, each carrying the object named after its kind', () => {
  fc.assert(
    fc.property(markdown, (md) => {
      let n = 0;
      for (const { payload } of markdownToBlocks(md, () => `l${n++}`)) {
        assert.ok(KINDS.has(payload.blockType), payload.blockType);
        assert.equal(typeof payload[payload.blockType], 'object');
        const list = (payload[payload.blockType] as { list?: { level: number } }).list;
        if (list) assert.ok(list.level >= 1);
      }
    }),
    { numRuns: 300 },
  );
});

// The text goes into the source raw, so text that would complete a construct (a lone '*' + ' a' becomes a list
// item; '*{*' + 'A' re-pairs emphasis) is outside this property: plain paragraphs, words appended.
test('appendText edits the paragraph source: converting the stored Markdown again gives the answered text', () => {
  const store = new Store(':memory:');
  try {
    let counter = 0;
    const ops = new Operations(store, new IdGenerator('p', () => ++counter), new Clock());
    const workspace = ops.addWorkspace('W', '');
    let docNumber = 0;
    fc.assert(
      fc.property(plainMarkdown, fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9 ]{0,10}[A-Za-z0-9])?$/), fc.nat(), (md, text, pick) => {
        const node = ops.createNode({ workspaceId: workspace.workspaceId, name: `d${docNumber++}`, docType: 'DOC', actor: 'u', markdown: md });
        const paragraphs = (store.body(node.dentryUuid)?.blocks ?? []).filter((b) => b.block.blockType === 'paragraph');
        const target = paragraphs[pick % Math.max(paragraphs.length, 1)];
        if (!target) return;
        const whole = ops.appendText(node, target.block.id, text, 'u');
        const stored = store.body(node.dentryUuid);
        const reconverted = markdownToBlocks(stored?.markdown ?? '', () => 'l').map((b) => b.payload);
        assert.deepEqual(reconverted, stored?.blocks.map(({ block: { id: _id, index: _index, ...payload } }) => payload).map((p) => stripListIds(p, reconverted)));
        assert.ok(reconverted.some((p) => (p['paragraph'] as { text: string } | undefined)?.text === whole));
      }),
      { numRuns: 200 },
    );
  } finally {
    store.close();
  }
});

/** List ids are fresh on each conversion; compare everything else. */
function stripListIds(payload: Record<string, unknown>, _: unknown): Record<string, unknown> {
  const inner = payload[payload['blockType'] as string] as { list?: { level: number } } | undefined;
  if (!inner?.list) return payload;
  return { ...payload, [payload['blockType'] as string]: { ...inner, list: { ...inner.list, listId: 'l' } } };
}
