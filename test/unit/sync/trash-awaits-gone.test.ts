import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentHash } from '../../../src/markdown/hash.js';
import { decideTrash } from '../../../src/sync/decide/removals.js';

/**
 * A document deleted by another machine, its file here as last synced, before that machine's `gone` (which names the
 * version it deleted) came: a version made from another, written lately, waits for it; anything else is decided now.
 */
const FILE = '# Tables\n\nRows and cells.\n';
const OLDER = contentHash('# Tables\n\nRows.\n');
const trash = (facts: { readonly builtOn?: string | null; readonly deleted?: string; readonly goneMayCome?: boolean }, file = FILE): string =>
  decideTrash({ mode: 'two-way', localHash: contentHash(FILE), fileText: file, ...facts }).kind;

test('a version made from another, its deleter\'s gone still to come: nothing decided yet', () => {
  assert.equal(trash({ builtOn: OLDER, goneMayCome: true }), 'none');
});

test('what a gone to come could not change is decided now', () => {
  assert.equal(trash({ builtOn: null, goneMayCome: true }), 'trash-local', 'no version it was made from known: no gone can name it');
  assert.equal(trash({ builtOn: contentHash(FILE), goneMayCome: true }), 'trash-local', 'made from itself: the delete knew it');
  assert.equal(trash({ builtOn: OLDER, deleted: contentHash(FILE), goneMayCome: true }), 'trash-local', 'the gone came, naming this very version');
  assert.equal(trash({ builtOn: OLDER, deleted: OLDER, goneMayCome: true }), 'recreate', 'the gone came, naming the version this was made from');
  assert.equal(trash({ builtOn: OLDER, goneMayCome: false }), 'trash-local', 'no gone will come now: the wait is over');
  assert.equal(trash({ builtOn: OLDER, goneMayCome: true }, `${FILE}\nEdited here.\n`), 'recreate', 'an edit in the file wins at once');
});
