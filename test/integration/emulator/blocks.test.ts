import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createDoc, overwrite, readBlocks, withEmulator } from '../../helpers/emulator.js';

const SAMPLE = `# Title *one*

A paragraph with **bold**, \`code\` and a [link](https://example.com).

- first
  - nested **two**
    - deeper
- second

1. one
2. two

> quoted line
>
> second para

| a | b | c |
|---|---|---|
| 1 | 2 | 3 |
| 4 | 5 | 6 |

\`\`\`js
const x = 1;
\`\`\`

![alt](pic.png)

---

<div>html</div>
`;

type Block = { id: string; index: number; blockType: string } & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('emulator: Markdown → blocks, overwrite, read, append', () => {
  test('overwrite converts each kind to top-level typed blocks with fresh ids and indexes from 0', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Blocks');
      assert.equal((await overwrite(em, doc.docKey, SAMPLE)).status, 200);
      const read = await readBlocks(em, doc.docKey);
      assert.equal(read.status, 200);
      assert.equal(read.body.success, true);
      const blocks: Block[] = read.body.result.data;
      assert.deepEqual(blocks.map((b) => b.index), blocks.map((_, i) => i));
      assert.equal(new Set(blocks.map((b) => b.id)).size, blocks.length);
      const shapes = blocks.map(({ id: _id, index: _index, ...rest }) => rest);
      const lists = blocks.filter((b) => b.blockType.endsWith('List'));
      const outerId = lists[0]?.['unorderedList'].list.listId;
      assert.deepEqual(shapes, [
        { blockType: 'heading', heading: { level: 'heading-1', text: 'Title one' } },
        { blockType: 'paragraph', paragraph: { text: 'A paragraph with bold, code and a link.' } },
        { blockType: 'unorderedList', unorderedList: { text: 'first', list: { listId: outerId, level: 1 } } },
        { blockType: 'unorderedList', unorderedList: { text: 'nested two', list: { listId: lists[1]?.['unorderedList'].list.listId, level: 2 } } },
        { blockType: 'unorderedList', unorderedList: { text: 'deeper', list: { listId: lists[2]?.['unorderedList'].list.listId, level: 3 } } },
        { blockType: 'unorderedList', unorderedList: { text: 'second', list: { listId: outerId, level: 1 } } },
        { blockType: 'orderedList', orderedList: { text: 'one', list: { listId: lists[4]?.['orderedList'].list.listId, level: 1 } } },
        { blockType: 'orderedList', orderedList: { text: 'two', list: { listId: lists[4]?.['orderedList'].list.listId, level: 1 } } },
        { blockType: 'blockquote', blockquote: { text: 'quoted line\nsecond para' } },
        { blockType: 'table', table: { colSize: 3, rowSize: 3 } },
        { blockType: 'unknown', unknown: {} },
        { blockType: 'unknown', unknown: {} },
        { blockType: 'unknown', unknown: {} },
        { blockType: 'unknown', unknown: {} },
      ]);
      const listIds = new Set(lists.map((b) => (b['unorderedList'] ?? b['orderedList']).list.listId));
      assert.equal(listIds.size, 4, 'outer list, two nested lists, the ordered list');
      const again = await overwrite(em, doc.docKey, SAMPLE);
      assert.equal(again.status, 200);
      const reread: Block[] = (await readBlocks(em, doc.docKey)).body.result.data;
      assert.ok(reread.every((b) => !blocks.some((old) => old.id === b.id)), 'an overwrite gives every block a fresh id');
      assert.equal(em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid)?.markdown, SAMPLE);
    }));

  test('read filters: startIndex, endIndex (inclusive) and blockType', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Filters');
      await overwrite(em, doc.docKey, '# h\n\np1\n\np2\n\n- a\n');
      const range = (await readBlocks(em, doc.docKey, { startIndex: 1, endIndex: 2 })).body.result.data as Block[];
      assert.deepEqual(range.map((b) => b.index), [1, 2]);
      const paragraphs = (await readBlocks(em, doc.docKey, { blockType: 'paragraph' })).body.result.data as Block[];
      assert.deepEqual(paragraphs.map((b) => b['paragraph'].text), ['p1', 'p2']);
      assert.equal((await readBlocks(em, doc.docKey, { startIndex: -1 })).body.code, 'paramError');
    }));

  test('overwrite moves modifiedTime and modifierId, accepts dataType, and refuses over 50,000 characters', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Times');
      const nodeOf = async () => (await call(em, 'GET', `/v2.0/wiki/nodes/${doc.dentryUuid}`, { query: { operatorId: em.seed.operatorId } })).body.node;
      const before = await nodeOf();
      em.admin.setClockOffset(5 * 60_000);
      const r = await call(em, 'POST', `/v1.0/doc/suites/documents/${doc.docKey}/overwriteContent`, {
        query: { operatorId: em.seed.operatorId },
        body: { operatorId: em.seed.operatorId, content: 'new', dataType: 'markdown' },
      });
      assert.equal(r.status, 200);
      const after = await nodeOf();
      assert.notEqual(after.modifiedTime, before.modifiedTime);
      assert.equal(after.createTime, before.createTime);
      assert.equal(after.modifierId, em.seed.operatorId);
      const atLimit = await overwrite(em, doc.docKey, 'x'.repeat(50_000));
      assert.equal(atLimit.status, 200);
      const tooLong = await overwrite(em, doc.docKey, 'x'.repeat(50_001));
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.code, 'paramError');
      assert.match(tooLong.body.message, /50000/);
      const badType = await call(em, 'POST', `/v1.0/doc/suites/documents/${doc.docKey}/overwriteContent`, {
        query: { operatorId: em.seed.operatorId },
        body: { operatorId: em.seed.operatorId, content: 'x', contentType: 'html' },
      });
      assert.equal(badType.body.code, 'paramError');
    }));

  test('appendText appends to a paragraph, answers the whole text, and changes the stored Markdown', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Append');
      await overwrite(em, doc.docKey, '# Head\n\nFirst *para*\n\nSecond\n');
      const blocks: Block[] = (await readBlocks(em, doc.docKey)).body.result.data;
      const path = (blockId: string) => `/v1.0/doc/suites/documents/${doc.docKey}/blocks/${blockId}/paragraph/appendText`;
      const first = blocks[1] as Block;
      const r = await call(em, 'POST', path(first.id), { body: { operatorId: em.seed.operatorId, text: ' more' } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { success: true, result: { data: { text: 'First para more' } } });
      const r2 = await call(em, 'POST', path((blocks[2] as Block).id), { body: { operatorId: em.seed.operatorId, text: '!' } });
      assert.equal(r2.body.result.data.text, 'Second!');
      const after: Block[] = (await readBlocks(em, doc.docKey)).body.result.data;
      assert.deepEqual(after.map((b) => b.id), blocks.map((b) => b.id), 'append keeps block ids');
      assert.equal(after[1]?.['paragraph'].text, 'First para more');
      assert.equal(em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid)?.markdown, '# Head\n\nFirst *para* more\n\nSecond!\n');
      const heading = await call(em, 'POST', path((blocks[0] as Block).id), { body: { operatorId: em.seed.operatorId, text: 'x' } });
      assert.equal(heading.status, 400);
      assert.equal(heading.body.code, 'paramError');
      const unknown = await call(em, 'POST', path('nope'), { body: { operatorId: em.seed.operatorId, text: 'x' } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'blockNotExist');
      const noOperator = await call(em, 'POST', path(first.id), { query: { operatorId: em.seed.operatorId }, body: { text: 'x' } });
      assert.equal(noOperator.body.code, 'MissingoperatorId');
    }));
});
