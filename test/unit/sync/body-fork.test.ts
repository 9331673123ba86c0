import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import type { BodyDecision, BodyFacts, PublishedVersion } from '../../../src/sync/decide/body.js';
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

/** The other machine's write, as its record (the page's latest) says it. */
const WRITE: PublishedVersion = { text: WRITTEN, remoteBlocksHash: blocksHash(predictedBlocks(WRITTEN)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 };

/** B's decision, its record the save it pulled, the document holding the other machine's write; `fork`: what the state says of it. */
function decide(fork: BodyFacts['fork'] | undefined): BodyDecision {
  return decideTwoWay({
    record: agreedOn(SAVED, { remoteModifiedTime: MINUTE, agreedAt: 1_000_000 }),
    listedTime: MINUTE,
    published: WRITE,
    ...(fork ? { fork } : {}),
    fileText: SAVED,
    remote: predictedBlocks(WRITTEN),
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
    const decision = decide({ base: BEFORE, branch: WRITE });
    const both = SAVED.replace('Second paragraph.', 'Second paragraph, edited on A.');
    assert.equal(decision.kind, 'merge');
    assert.equal(decision.nextFile, both);
    assert.equal(decision.send?.markdown.includes('saved in the web editor'), true, 'the document gets the save back');
    assert.equal(decision.conflictCopy, undefined, 'no person needed');
    assert.equal(decision.builtOn, contentHash(WRITTEN), 'made from the write the document held exactly as read');
  });

  test('without that version’s text, the other branch is kept beside the file as a conflict: never dropped', () => {
    const decision = decide({ base: undefined, branch: WRITE });
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.conflictCopy, WRITTEN);
    assert.equal(decision.fileText, SAVED, 'the file keeps the save');
    assert.equal(decision.send, undefined, 'the document keeps the write until a person settles it');
  });
});

/**
 * Model seed 8506 (issue 44), as the two machines' decisions: A wrote the page (FORMATTED, bold words) from the version
 * B had read a moment before; B took that earlier version into its file with a front matter of its own and recorded
 * it after A's record, in the same minute. B's record stands as the page's latest, A's write as the branch it
 * overtook (SharedState.forks), and the document holds A's write.
 */
describe('a write that landed after the read another branch was made from', () => {
  const FRONT = '---\ntags: [b]\n---\n';
  const FORMATTED = BEFORE.replace('Second paragraph.', 'Second paragraph, **bold on A**.');
  const LATER = '2026-11-02T09:05Z';
  const written: PublishedVersion = { text: FORMATTED, remoteBlocksHash: blocksHash(predictedBlocks(FORMATTED)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_000 };
  // B's own record, agreed well after A's (more than the slack of two machines' clocks): not what orders them here.
  const read: PublishedVersion = { text: FRONT + BEFORE, remoteBlocksHash: blocksHash(predictedBlocks(BEFORE)), modifiedTime: '', exact: true, agreedAt: 1_010_000 };

  /** B's decision: its record the earlier version read, the document holding A's write (and, `listedTime` later, a save since). */
  const decideReader = (listedTime: string): BodyDecision =>
    decideTwoWay({
      record: agreedOn(read.text, { remoteModifiedTime: '', agreedAt: read.agreedAt }),
      listedTime,
      published: read,
      fork: { base: BEFORE, branch: written },
      fileText: read.text,
      remote: predictedBlocks(FORMATTED),
    });

  test('the reader takes the write exactly, formatting and all, beside its own front matter: no conflict, nothing sent', () => {
    const decision = decideReader(MINUTE);
    assert.equal(decision.conflictCopy, undefined, 'the write read plainly is the branch itself, not a clash with it');
    assert.equal(decision.nextFile, FRONT + FORMATTED);
    assert.equal(decision.send, undefined, 'the document holds that body already');
    assert.equal(decision.lossy, false, 'the document holds exactly the write: nothing to hold');
    assert.equal(decision.hiddenEdit, null);
    assert.equal(decision.builtOn, contentHash(FORMATTED), 'made from the write the document held exactly as read');
  });

  test('a later minute is a save reads cannot show since the write: said, and the file still takes the write', () => {
    const decision = decideReader(LATER);
    assert.equal(decision.conflictCopy, undefined);
    assert.equal(decision.nextFile, FRONT + FORMATTED);
    assert.equal(decision.send, undefined);
    assert.equal(decision.hiddenEdit, LATER);
    assert.equal(decision.hiddenEditSeen, true);
  });

  test("the writer's file takes the other branch's front matter: it reached the shared state alone", () => {
    const decision = decideTwoWay({
      record: agreedOn(FORMATTED, { remoteModifiedTime: MINUTE, agreedAt: written.agreedAt }),
      listedTime: LATER,
      published: read,
      fork: { base: BEFORE, branch: read },
      fileText: FORMATTED,
      remote: predictedBlocks(FORMATTED),
    });
    assert.equal(decision.conflictCopy, undefined);
    assert.equal(decision.nextFile, FRONT + FORMATTED);
    assert.equal(decision.send, undefined, 'the body is the document’s already');
    assert.equal(decision.hiddenEdit, LATER, 'the save since the write is still said');
  });
});

/**
 * A clash found merging the branches is kept with the text it was found against (BodyDecision.conflictBase), for
 * kbsync resolve: against this record's base, this machine's side of the clash reads as unchanged, and resolve listed
 * no clash and settled the line for the other branch unasked.
 */
describe('a clash between the branches keeps the base it was found against', () => {
  const FRONT = '---\ntags: [b]\n---\n';
  const MINE = BEFORE.replace('First paragraph.', 'First paragraph, saved in the web editor.');
  const THEIRS = BEFORE.replace('First paragraph.', 'First paragraph, edited on A.');
  /** The other branch, as its record says it, with `head` for its front matter. */
  const other = (head = ''): PublishedVersion => ({ text: head + THEIRS, remoteBlocksHash: blocksHash(predictedBlocks(THEIRS)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 });
  /** This machine's decision: its record and file the save (with `head`), the document holding the other branch. */
  const clashing = (fork: NonNullable<BodyFacts['fork']>, head = ''): BodyDecision =>
    decideTwoWay({
      record: agreedOn(head + MINE, { remoteModifiedTime: MINUTE, agreedAt: 1_000_000 }),
      listedTime: MINUTE,
      published: other(head),
      fork,
      fileText: head + MINE,
      remote: predictedBlocks(THEIRS),
    });

  test('the version both were made from, front matter and all', () => {
    for (const head of ['', FRONT]) {
      const decision = clashing({ base: head + BEFORE, branch: other(head) }, head);
      assert.equal(decision.kind, 'conflict');
      assert.equal(decision.conflictCopy, head + THEIRS);
      assert.equal(decision.conflictBase, head + BEFORE, 'not the record’s base, which is this side of the clash');
    }
  });

  test('without that version’s text, nothing: the branch was kept whole beside the file, against nothing', () => {
    const decision = clashing({ base: undefined, branch: other() });
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.conflictBase, '');
  });

  test('a clash with no branch keeps the record’s base', () => {
    const decision = decideTwoWay({ record: agreedOn(BEFORE), fileText: MINE, remote: predictedBlocks(THEIRS) });
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.conflictBase, BEFORE);
    assert.equal(decideTwoWay({ record: agreedOn(BEFORE), fileText: BEFORE, remote: predictedBlocks(THEIRS) }).conflictBase, undefined, 'no clash, no base');
  });
});

describe('the copy and the clashes of a merge of two branches', () => {
  const para = (x: string, y: string): string => `# Guide\n\n${x}\n\n${y}\n`;
  const X = 'First paragraph.';
  const Y = 'Second paragraph.';

  test('a clash of the file with the branch the document holds is one clash, said once', () => {
    const mine = para('First, saved here.', Y);
    const theirs = para('First, edited on A.', Y);
    const other: PublishedVersion = { text: theirs, remoteBlocksHash: blocksHash(predictedBlocks(theirs)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 };
    const decision = decideTwoWay({
      record: agreedOn(mine, { remoteModifiedTime: MINUTE, agreedAt: 1_000_000 }),
      listedTime: MINUTE,
      published: other,
      fork: { base: para(X, Y), branch: other },
      fileText: mine,
      remote: predictedBlocks(theirs),
    });
    assert.equal(decision.kind, 'conflict');
    assert.deepEqual(decision.conflicts.map((c) => c.position.line), [3], 'not "line 3, 3"');
  });

  // This machine wrote the second paragraph over the other branch's edit of it (unseen); a colleague then edited the
  // first in the document, and the file edited it too. Each merge finds its own clash: the copy carries the other side
  // of both, or the colleague's words were in neither file nor copy, and settling the conflict published over them.
  test("the copy carries the other side of every clash: the document's and the other branch's", () => {
    const written = para(X, 'Second, written here.');
    const branchText = para(X, 'Second, on the other branch.');
    const branch: PublishedVersion = { text: branchText, remoteBlocksHash: blocksHash(predictedBlocks(branchText)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_000 };
    const decision = decideTwoWay({
      record: agreedOn(written, { remoteModifiedTime: MINUTE, agreedAt: 1_000_500 }),
      listedTime: '2026-11-02T09:07Z',
      fork: { base: para(X, Y), branch },
      fileText: para('First, edited here.', 'Second, written here.'),
      remote: predictedBlocks(para('First, edited by a colleague.', 'Second, written here.')),
    });
    assert.equal(decision.kind, 'conflict');
    assert.equal(decision.fileText, para('First, edited here.', 'Second, written here.'), 'the file keeps its side of both');
    assert.equal(decision.conflictCopy, para('First, edited by a colleague.', 'Second, on the other branch.'));
    assert.equal(decision.conflictBase, para(X, Y));
    assert.equal(decision.send, undefined, 'the document keeps what it holds until a person settles it');
  });
});
