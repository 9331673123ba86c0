import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import type { BodyDecision } from '../../../src/sync/decide/body.js';
import { decideTrash } from '../../../src/sync/decide/removals.js';
import { agreedOn, decideTwoWay } from '../../helpers/body-facts.js';

/**
 * Issue 44: this machine's recorded text never reached the shared state (its append failed, or the run was killed
 * before it), and another writer's later version comes in (its move of the file, its edit). Front matter and line
 * endings reach the others through the state alone, so what changed in them since this machine last published is
 * its own edit: merged against that version like any local edit, never overwritten by it.
 */
const MINUTE = '2026-11-02T09:04Z';
const BODY = '# Guide\n\nHow to start.\n\nThen carry on.\n';
const head = (owner: string): string => `---\nowner: ${owner}\n---\n`;

/**
 * The decision on a file as recorded (`recorded`, never published), against another writer's later version
 * `theirs` of a document that shows `theirs`' body; `lastPublished`: what this machine last published of it, or
 * `unknown`; `undefined`: the record's text is not unpublished (the fact not given).
 */
function decide(recorded: string, theirs: string, lastPublished: string | 'unknown' | undefined): BodyDecision {
  const theirBlocks = agreedOn(theirs).remoteBlocks;
  return decideTwoWay({
    path: 'ref/guide.md',
    record: agreedOn(recorded, { remoteModifiedTime: MINUTE, agreedAt: 1_000_000 }),
    listedTime: MINUTE,
    published: { text: theirs, remoteBlocksHash: blocksHash(theirBlocks), modifiedTime: MINUTE, exact: true, agreedAt: 1_060_000 },
    ...(lastPublished === undefined ? {} : { unpublished: { lastPublished: lastPublished === 'unknown' ? undefined : lastPublished } }),
    fileText: recorded,
    remote: theirBlocks,
  });
}

describe('a recorded text never published, against another writer’s later version', () => {
  test('its front matter, added since it last published: kept, a local edit agreed anew', () => {
    const decision = decide(head('u26z') + BODY, BODY, BODY);
    assert.equal(decision.nextFile, undefined, 'the file is not rewritten');
    assert.equal(decision.fileText, head('u26z') + BODY);
    assert.equal(decision.kind, 'none');
    assert.ok(decision.localChanged, 'a local change, so the run says it and publishes it');
    assert.ok(decision.keptUnpublished);
    assert.equal(decision.conflictCopy, undefined);
  });

  test('the same, its text published (the fact not given): the other version’s front matter is taken, as before', () => {
    const decision = decide(head('u26z') + BODY, BODY, undefined);
    assert.equal(decision.nextFile, BODY);
    assert.ok(!decision.keptUnpublished);
  });

  test('front matter the other writer changed, and this machine did not since it last published: theirs is taken', () => {
    const mine = head('u1z') + BODY.replace('How to start.', 'How to start, edited here.');
    const decision = decide(mine, head('c3z') + BODY.replace('How to start.', 'How to start, edited here.'), head('u1z') + BODY);
    assert.equal(decision.nextFile, head('c3z') + BODY.replace('How to start.', 'How to start, edited here.'));
    assert.ok(!decision.keptUnpublished);
  });

  test('front matter both changed since this machine last published: a conflict, the file keeps its own', () => {
    const decision = decide(head('u2z') + BODY, head('c3z') + BODY, head('u1z') + BODY);
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.fileText, head('u2z') + BODY);
    assert.match(decision.conflictCopy ?? '', /owner: c3z/);
  });

  test('nothing known of what it last published: its front matter is kept over a version without one, a clash with one is a conflict', () => {
    assert.equal(decide(head('u2z') + BODY, BODY, 'unknown').fileText, head('u2z') + BODY);
    assert.equal(decide(head('u2z') + BODY, head('c3z') + BODY, 'unknown').kind, 'conflict');
  });

  test('its line endings, changed since it last published: kept', () => {
    const crlf = BODY.replace(/\n/g, '\r\n');
    const decision = decide(crlf, BODY, BODY);
    assert.equal(decision.fileText, crlf);
    assert.ok(decision.keptUnpublished);
  });

  test('a body edit of the other writer comes in beside the front matter kept', () => {
    const theirs = BODY.replace('Then carry on.', 'Then carry on, as B says.');
    const decision = decide(head('u26z') + BODY, theirs, BODY);
    assert.equal(decision.fileText, head('u26z') + theirs);
    assert.equal(decision.kind, 'merge', 'both sides changed');
    assert.equal(decision.send, undefined, 'the document already holds the body');
  });
});

describe('a file as recorded, its record never published, whose document another writer deleted', () => {
  const trash = (file: string, lastPublished: string | 'unknown' | undefined): string =>
    decideTrash({ mode: 'two-way', localHash: contentHash(file), fileText: file, ...(lastPublished === undefined ? {} : { unpublished: { lastPublished: lastPublished === 'unknown' ? undefined : lastPublished } }) }).kind;

  test('front matter added since it last published: an edit the deleting writer never saw, and an edit beats a delete', () => {
    assert.equal(trash(head('u26z') + BODY, BODY), 'recreate');
    assert.equal(trash(head('u26z') + BODY, 'unknown'), 'recreate', 'nothing known published: its front matter is its own');
  });

  test('front matter and line endings as last published (a body edit the document carried to that writer): to the trash', () => {
    assert.equal(trash(head('u1z') + BODY.replace('How to start.', 'Edited.'), head('u1z') + BODY), 'trash-local');
    assert.equal(trash(BODY, 'unknown'), 'trash-local');
    assert.equal(trash(head('u26z') + BODY, undefined), 'trash-local', 'its record published: the delete was made knowing it');
  });

  test('line endings changed since it last published: recreated', () => {
    assert.equal(trash(BODY.replace(/\n/g, '\r\n'), BODY), 'recreate');
  });
});
