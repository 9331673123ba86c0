import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import type { BodyDecision, BodyFacts } from '../../../src/sync/decide/body.js';
import { agreedOn, decideTwoWay } from '../../helpers/body-facts.js';

/**
 * Model seed 6011 (issue 44), as one decision: this machine (B) pulled a colleague's save into the page, and
 * another machine's write, decided on the page before the save, then replaced it (the service has no conditional
 * write). Both versions were made from the same one (DocRecord `b`): the decision merges against that one.
 */
const MINUTE = '2026-11-02T09:04Z';
const BEFORE = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';
const SAVED = BEFORE.replace('First paragraph.', 'First paragraph, saved in the web editor.');
const WRITTEN = BEFORE.replace('Second paragraph.', 'Second paragraph, edited on A.');

/** B's decision, its record the save it pulled, the document holding the other machine's write; `fork`: what the state says of it. */
function decide(fork: BodyFacts['fork'] | undefined): BodyDecision {
  const written = predictedBlocks(WRITTEN);
  return decideTwoWay({
    record: agreedOn(SAVED, { remoteModifiedTime: MINUTE, agreedAt: 1_000_000 }),
    listedTime: MINUTE,
    published: { text: WRITTEN, remoteBlocksHash: blocksHash(written), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 },
    ...(fork ? { fork } : {}),
    fileText: SAVED,
    remote: written,
  });
}

describe('two versions made from the same one, one written over the other unseen', () => {
  test('without what the state says of it, the write is taken for the later version: the save is dropped (as before)', () => {
    const decision = decide(undefined);
    assert.equal(decision.nextFile, WRITTEN);
    assert.equal(decision.send, undefined);
    assert.equal(decision.builtOn, contentHash(WRITTEN), 'a pull of the version the document holds exactly is made from it');
  });

  test('merged against the version both were made from: the save is kept, the write taken, and both published', () => {
    const decision = decide({ base: BEFORE, branch: WRITTEN });
    const both = SAVED.replace('Second paragraph.', 'Second paragraph, edited on A.');
    assert.equal(decision.kind, 'merge');
    assert.equal(decision.nextFile, both);
    assert.equal(decision.send?.markdown.includes('saved in the web editor'), true, 'the document gets the save back');
    assert.equal(decision.conflictCopy, undefined, 'no person needed');
    assert.equal(decision.builtOn, contentHash(WRITTEN), 'made from the write the document held exactly as read');
  });

  test('without that version’s text, the other branch is kept beside the file as a conflict: never dropped', () => {
    const decision = decide({ base: undefined, branch: WRITTEN });
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.conflictCopy, WRITTEN);
    assert.equal(decision.fileText, SAVED, 'the file keeps the save');
    assert.equal(decision.send, undefined, 'the document keeps the write until a person settles it');
  });
});
