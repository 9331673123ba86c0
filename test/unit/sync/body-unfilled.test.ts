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

/**
 * Our own move's new document (act/create.ts recordUnpushed): its row carries the moved page as its base, with no
 * blocks and no time (madeUnfilled). Read empty, that page is the file's first push to send; filled by a follower
 * meanwhile, the follower's text merges against that page, not against nothing (issue 44: every block came twice).
 */
const ownMove = (over: Partial<BodyFacts> = {}): BodyFacts => {
  const facts = unfilled({ bodyComing: false, fileText: BASE, listedLately: false, ...over });
  return { ...facts, record: { ...facts.record, remoteBlocks: [], remoteBlocksHash: blocksHash([]) } };
};

test('our own move, its new document still empty: the file is pushed into it, never the page taken for deleted', () => {
  const decision = decideBody(ownMove());
  assert.equal(decision.kind, 'push');
  assert.equal(decision.nextFile, undefined, 'the file is not emptied');
  assert.equal(decision.send?.markdown, BASE);
  // A follower's record of the page over our record of the ids reads as a body still to come: ours, which we send.
  const followedMeanwhile = decideBody(ownMove({ bodyComing: true, listedLately: true }));
  assert.equal(followedMeanwhile.kind, 'push', 'the maker never waits for its own body');
  assert.equal(followedMeanwhile.send?.markdown, BASE);
  const pulling = decideBody(ownMove({ mode: 'pull' }));
  assert.equal(pulling.nextFile, undefined, 'a pull-only run does not empty it either');
  assert.equal(pulling.send, undefined);
});

test('our own move, its new document filled by a follower with its edit: the file takes that edit, once', () => {
  const filled = predictedBlocks(EDITED);
  const published = { text: EDITED, remoteBlocksHash: blocksHash(filled), modifiedTime: '2026-11-02T09:12Z', exact: true, agreedAt: 1, path: 'yaml.md' };
  const decision = decideBody(ownMove({ remote: filled, published }));
  assert.equal(decision.nextFile, EDITED, 'merged against the moved page: the code block once');
  assert.equal(decision.send, undefined, 'nothing to send back');
  assert.equal(decision.baseText, EDITED);
});

test('our own move, its new document filled by a follower with the very page it carries: taken as that version, code and all', () => {
  const filled = predictedBlocks(BASE);
  // The follower agreed on that page in the old document, before our row was made: its record keeps that time.
  const published = { text: BASE, remoteBlocksHash: blocksHash(filled), modifiedTime: '2026-11-02T09:12Z', exact: true, agreedAt: 1_000, path: 'yaml.md' };
  const facts = ownMove({ remote: filled, published, fileText: BASE, listedTime: '2026-11-02T09:12Z', listedLately: true });
  const decision = decideBody({ ...facts, record: { ...facts.record, agreedAt: 2_000_000 } });
  assert.notEqual(decision.waiting, true, 'nothing left to wait for: the version the document holds is known');
  assert.equal(decision.nextFile, undefined, 'the file keeps its code, no placeholder for it');
  assert.equal(decision.send, undefined);
  assert.equal(decision.lossy, false, 'the document is known exactly: the next edit is sent, not held');
  assert.equal(decision.baseText, BASE);
});

test("…but not a file holding kbsync's placeholders: no new document can take the blocks they stand for, so nothing is written over it (model seed 6018)", () => {
  const withPlaceholder = `# Yaml\n\nA parser for YAML.\n\n${PLACEHOLDER_PREFIX} a block the service does not expose (code, image or other) is here; edit it in the web editor -->\n`;
  const decision = decideBody(unfilled({ listedLately: false, fileText: withPlaceholder }));
  assert.equal(decision.kind, 'held');
  assert.equal(decision.held?.code, 'PLACEHOLDERS');
  assert.equal(decision.send, undefined);
  assert.equal(decision.nextFile, undefined, 'the file keeps the page');
});
