import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Block } from '../../../src/model/blocks.js';
import { asBlockId } from '../../../src/model/ids.js';
import {
  align,
  blocksHash,
  blocksToMarkdown,
  contentKey,
  contentOfBlock,
  merge3,
  outline,
  parseDocument,
  sameContent,
  toPushMarkdown,
} from '../../../src/markdown/index.js';
import { segmentBody } from '../../../src/markdown/segments.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { createDoc, overwrite, readBlocks } from '../../helpers/emulator.js';
import { realWorldMarkdown } from './real-world-fixtures.js';

type Raw = { id: string; index: number; blockType: string; [kind: string]: unknown };
type Payload = { text?: string; level?: string | number; list?: { listId: string; level: number }; colSize?: number; rowSize?: number; rolSize?: number; cells?: string[][] };

/** The service's block JSON → kbsync's Block, written here so this test does not depend on the API client. */
function toBlock(raw: Raw): Block {
  const base = { id: asBlockId(raw.id), index: raw.index };
  const payload = (raw[raw.blockType] ?? {}) as Payload;
  const text = payload.text ?? '';
  switch (raw.blockType) {
    case 'heading':
      return { ...base, type: 'heading', level: Number(String(payload.level ?? '1').replace('heading-', '')), text };
    case 'paragraph':
    case 'blockquote':
      return { ...base, type: raw.blockType, text };
    case 'unorderedList':
    case 'orderedList':
      return { ...base, type: raw.blockType, text, listId: payload.list?.listId ?? '', level: payload.list?.level ?? 1 };
    case 'table':
      return { ...base, type: 'table', cols: payload.colSize ?? 0, rows: payload.rowSize ?? payload.rolSize ?? 0, ...(payload.cells ? { cells: payload.cells } : {}) };
    default:
      return { ...base, type: 'unknown', kind: raw.blockType };
  }
}

async function pushAndRead(em: RunningEmulator, docKey: string, markdown: string): Promise<Block[]> {
  const written = await overwrite(em, docKey, markdown);
  assert.equal(written.status, 200, JSON.stringify(written.body));
  return readAll(em, docKey);
}

async function readAll(em: RunningEmulator, docKey: string): Promise<Block[]> {
  const read = await readBlocks(em, docKey);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  return (read.body.result.data as Raw[]).map(toBlock);
}

const fixtures = realWorldMarkdown(40)
  .map((fixture) => {
    try {
      return { path: fixture.path, body: parseDocument(fixture.text, fixture.path).body };
    } catch {
      return undefined; // front matter kbsync refuses is the front-matter tests' business
    }
  })
  .filter((fixture) => fixture !== undefined && fixture.body.trim() !== '' && toPushMarkdown(fixture.body).length <= 50_000) as { path: string; body: string }[];

describe('real-world Markdown through the emulator', () => {
  let em: RunningEmulator;
  before(async () => {
    em = await startEmulator({ rateLimit: 0, seed: 7 });
  });
  after(async () => {
    await em.close();
  });

  test('there are enough real-world documents to mean something', () => {
    assert.ok(fixtures.length >= 30, `only ${fixtures.length} Markdown files found under node_modules`);
  });

  test('push → read back → pull with nothing changed keeps every file byte for byte; a second push is identical', async () => {
    for (const [k, { path, body }] of fixtures.entries()) {
      const { dentryUuid } = await createDoc(em, `round-trip ${k}`);
      const pushed = toPushMarkdown(body);
      const blocks = await pushAndRead(em, dentryUuid, pushed);
      // The outline predicts what the service made of the body, block for block.
      const predicted = outline(body);
      assert.equal(predicted.length, blocks.length, path);
      predicted.forEach((node, i) => assert.ok(sameContent(node, contentOfBlock(blocks[i]!)), `${path}: block ${i}`));
      const alignment = align(body, blocks);
      assert.deepEqual([...alignment.map].sort((a, b) => (a ?? -1) - (b ?? -1)), blocks.map((_, i) => i), `${path}: every block mapped`);
      const pulled = merge3({ base: body, remoteBase: blocks, remote: await readAll(em, dentryUuid), local: body, alignment });
      assert.equal(pulled.body, body, path);
      assert.deepEqual(pulled.conflicts, []);
      assert.equal(pulled.needsPush, false, path);
      assert.equal(toPushMarkdown(pulled.body), pushed, path);
      assert.equal(blocksHash(await pushAndRead(em, dentryUuid, toPushMarkdown(pulled.body))), blocksHash(blocks), path);
    }
  });

  test('an edit made online to one paragraph comes back alone; all other local source stays', async () => {
    for (const [k, { path, body }] of fixtures.entries()) {
      const segments = segmentBody(body).segments;
      const target = segments.findLast((segment) => segment.node.type === 'paragraph');
      if (!target) continue;
      const { dentryUuid } = await createDoc(em, `remote edit ${k}`);
      const remoteBase = await pushAndRead(em, dentryUuid, toPushMarkdown(body));
      const edited = toPushMarkdown(body.slice(0, target.start) + 'Edited online.' + body.slice(target.end));
      em.admin.editDocument(dentryUuid, edited);
      const remote = await readAll(em, dentryUuid);
      const result = merge3({ base: body, remoteBase, remote, local: body, alignment: align(body, remoteBase) });
      assert.equal(result.body, body.slice(0, target.start) + 'Edited online.' + body.slice(target.end), path);
      assert.deepEqual(result.conflicts, []);
    }
  });

  test('Markdown written for a pulled document reads back as the same blocks and settles after one round', async () => {
    const kinds = (blocks: readonly Block[]): string[] =>
      blocks.map((block) => (block.type === 'unknown' || (block.type === 'table' && !block.cells) ? 'unknown' : contentKey(contentOfBlock(block))));
    for (const [k, { path, body }] of fixtures.slice(0, 15).entries()) {
      const source = await createDoc(em, `source ${k}`);
      const blocks = await pushAndRead(em, source.dentryUuid, toPushMarkdown(body));
      const copy = await createDoc(em, `copy ${k}`);
      const markdown = blocksToMarkdown(blocks);
      const again = await pushAndRead(em, copy.dentryUuid, toPushMarkdown(markdown));
      // A table without cells can only be a placeholder, which reads back as an unknown block.
      assert.deepEqual(kinds(again), kinds(blocks), path);
      const settled = blocksToMarkdown(again);
      assert.equal(blocksToMarkdown(await pushAndRead(em, copy.dentryUuid, toPushMarkdown(settled))), settled, path);
    }
  });
});
