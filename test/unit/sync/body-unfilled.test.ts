import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, PLACEHOLDER_PREFIX, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import { decideBody, type BodyFacts } from '../../../src/sync/decide/body.js';

/**
 * Soak seed 714 (issue 44): a record rebound to the document another writer made in place of its own (a move),
 * read while that document is still empty, its maker's first body to come (BodyFacts.bodyComing). The emptiness is
 * nobody's edit: it waits for that body while it may come, then the file fills the document; it is never pulled.
 */
const BASE = '# Yaml\n\nA parser for YAML.\n\n```sh\nnpm install js-yaml\n```\n';
const EDITED = BASE.replace('npm install js-yaml', 'npm install --save js-yaml');

/** `listed: false`: a run that listed nothing (a daemon's local cycle). */
function unfilled(over: Partial<BodyFacts> = {}, listed = true): BodyFacts {
  const blocks = predictedBlocks(BASE);
  return {
    mode: 'two-way',
    force: false,
    webEdits: 'merge',
    path: 'yaml.md',
    record: { baseMarkdown: BASE, remoteBlocks: blocks, alignment: undefined, localHash: contentHash(BASE), remoteBlocksHash: blocksHash(blocks), remoteModifiedTime: '', recheck: true },
    ...(listed ? { listedTime: '2026-11-02T09:08Z', listedLately: true } : {}),
    bodyComing: true,
    fileText: EDITED,
    remote: [],
    urlOf: undefined,
    ...over,
  };
}

test('a document another writer made and has yet to fill: nothing decided while its body may come, the file and its edit kept, and the wait said', () => {
  for (const facts of [unfilled(), unfilled({}, false), unfilled({ mode: 'pull', listedLately: false })]) {
    const decision = decideBody(facts);
    assert.equal(decision.waiting, true, JSON.stringify(facts.mode));
    // The file holds a page its document does not: a run that said nothing hid that (model seed 6018).
    assert.equal(decision.kind, 'held');
    assert.equal(decision.held?.code, 'BODY_COMING');
    assert.equal(decision.nextFile, undefined, 'the file is not emptied');
    assert.equal(decision.send, undefined, 'nothing is written into it yet');
  }
});

test('…past the two minutes its body may take, the file fills it, edit and all', () => {
  const decision = decideBody(unfilled({ listedLately: false }));
  assert.equal(decision.kind, 'push');
  assert.equal(decision.waiting, undefined);
  assert.equal(decision.nextFile, undefined);
  assert.equal(decision.send?.markdown, EDITED);
  assert.equal(decision.baseText, EDITED);
});

test('the same empty read with no body coming is a remote edit, as before (an emptied document)', () => {
  const decision = decideBody(unfilled({ bodyComing: false, fileText: BASE }));
  assert.notEqual(decision.waiting, true);
  assert.equal(decision.nextFile, '', 'taken for the deletion of every block');
});

test("…but not a file holding kbsync's placeholders: no new document can take the blocks they stand for, so nothing is written over it (model seed 6018)", () => {
  const withPlaceholder = `# Yaml\n\nA parser for YAML.\n\n${PLACEHOLDER_PREFIX} a block the service does not expose (code, image or other) is here; edit it in the web editor -->\n`;
  const decision = decideBody(unfilled({ listedLately: false, fileText: withPlaceholder }));
  assert.equal(decision.kind, 'held');
  assert.equal(decision.held?.code, 'PLACEHOLDERS');
  assert.equal(decision.send, undefined);
  assert.equal(decision.nextFile, undefined, 'the file keeps the page');
});
