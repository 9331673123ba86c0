import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDoc, overwrite, readBlocks, withEmulator } from '../../helpers/emulator.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';

/** The document's blocks as a dump gives them. */
const dumpedBlocks = (em: RunningEmulator, docKey: string) => em.admin.dump().nodes.find((node) => node.dentryUuid === docKey)?.blocks;

// The store keeps each body's blocks as last parsed (src/emulator/store/store.ts): the model test dumps every body
// after every step, and parsing the same stored JSON again was most of a dump.
test('emulator: a body read again unchanged gives the blocks parsed before, frozen; a changed one its new blocks', () =>
  withEmulator(async (em) => {
    const doc = await createDoc(em, 'Notes');
    assert.equal((await overwrite(em, doc.docKey, '# Notes\n\nFirst words.\n')).status, 200);
    const first = dumpedBlocks(em, doc.docKey);
    assert.ok(first?.[1]);
    assert.equal(dumpedBlocks(em, doc.docKey)?.[1], first[1], 'the same blocks, not parsed again');
    assert.ok(Object.isFrozen(first[1]) && Object.isFrozen(first[1]['paragraph']), 'shared blocks cannot be changed by one reader for the next');
    assert.throws(() => ((first[1] as unknown as { paragraph: { text: string } }).paragraph.text = 'changed'), TypeError);

    // A changed body is seen, whichever way it changed: an edit in the web editor, an overwrite.
    em.admin.editDocument(doc.docKey, '# Notes\n\nOther words.\n');
    assert.deepEqual(dumpedBlocks(em, doc.docKey)?.[1]?.['paragraph'], { text: 'Other words.' });
    assert.deepEqual(em.admin.blocks(doc.docKey)[1]?.['paragraph'], { text: 'Other words.' });
    assert.equal((await overwrite(em, doc.docKey, '# Notes\n\nNew words.\n')).status, 200);
    const read = await readBlocks(em, doc.docKey);
    assert.deepEqual((read.body as { result: { data: { paragraph?: unknown }[] } }).result.data[1]?.paragraph, { text: 'New words.' });
    assert.deepEqual(dumpedBlocks(em, doc.docKey)?.[1]?.['paragraph'], { text: 'New words.' });
  }));
