import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import type { Block } from '../../../src/model/blocks.js';
import { asBlockId } from '../../../src/model/ids.js';
import { AGREED_SLACK_MS, decideBody, type BodyDecision, type BodyFacts, type PublishedVersion } from '../../../src/sync/decide/body.js';
import { restoredVersion } from '../../../src/sync/decide/removals.js';
import { splitText } from '../../../src/sync/content/document-text.js';

/**
 * Another kbsync writer's version of a document, from the shared state, against this machine's record: a
 * change the service reads back the same (a link's address) shows only there. Found by the model test
 * (seed 5): two machines wrote within the same second, and the later write's agreement time, read from the
 * service's Date header (±1 s), came out a few milliseconds before the earlier one's.
 */
const MINUTE = '2026-11-02T09:04Z';
const OURS = '# Semver\n\nSee [the spec](https://example.com/spec).\n\nMore text.\n';
const THEIRS = OURS.replace('https://example.com/spec', 'https://example.com/u10z');

function facts(publishedAgreedAt: number, ourAgreedAt: number): BodyFacts {
  const blocks = predictedBlocks(OURS);
  const published: PublishedVersion = { text: THEIRS, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt: publishedAgreedAt };
  return {
    mode: 'two-way',
    force: false,
    webEdits: 'merge',
    path: 'semver.md',
    record: { baseMarkdown: OURS, remoteBlocks: blocks, alignment: undefined, localHash: contentHash(OURS), remoteBlocksHash: blocksHash(blocks), remoteModifiedTime: MINUTE, agreedAt: ourAgreedAt },
    listedTime: MINUTE,
    published,
    fileText: OURS,
    remote: blocks,
    urlOf: undefined,
  };
}

describe("another writer's published version", () => {
  test('agreed a few milliseconds "before" ours (closer than the clock can tell): its stamp makes it the latest, and it is taken in', () => {
    const decision = decideBody(facts(1_000_000, 1_000_010));
    assert.equal(decision.kind, 'pull');
    assert.equal(decision.nextFile, THEIRS, "the other machine's link address comes into the file");
    assert.equal(decision.send, undefined, 'nothing is sent back');
  });

  test('agreed clearly before ours (a record published late): an older version, left alone', () => {
    const decision = decideBody(facts(1_000_000 - AGREED_SLACK_MS - 1, 1_000_000));
    assert.equal(decision.kind, 'none');
    assert.equal(decision.nextFile, undefined);
  });
});

// Model seed 1023: a record rebound to follow the document another writer made in place of its own (decide/
// follow.ts) keeps the old document's blocks; an append named one of their ids, and failed (404) on every run.
test('an append names the block as read now, not as recorded (the record may be of a document since replaced)', () => {
  const recorded = predictedBlocks(OURS);
  const now: readonly Block[] = recorded.map((block) => ({ ...block, id: asBlockId(`now-${block.id}`) }));
  const decision = decideBody({
    mode: 'two-way',
    force: false,
    webEdits: 'merge',
    path: 'semver.md',
    // A lossy base (a colleague's formatting read back as plain text): only an append may go out.
    record: { baseMarkdown: OURS, remoteBlocks: recorded, alignment: undefined, localHash: contentHash(OURS), remoteBlocksHash: blocksHash(recorded), remoteModifiedTime: MINUTE, lossyBase: true },
    listedTime: MINUTE,
    fileText: OURS.replace('More text.', 'More text. And more.'),
    remote: now,
    urlOf: undefined,
  });
  assert.equal(decision.kind, 'push');
  assert.equal(decision.send?.append?.text, ' And more.');
  assert.match(decision.send?.append?.blockId ?? '', /^now-/);
});

/**
 * The decision on a file edited as `mine`, whose document a colleague edited as `theirs`, made so that the two
 * read alike (what they changed is where reads cannot see): `base` was last agreed, in a minute that is over.
 */
function editedAlike(base: string, mine: string, theirs: string): BodyDecision {
  const remote = predictedBlocks(theirs);
  assert.equal(blocksHash(remote), blocksHash(predictedBlocks(mine)), 'the two read alike');
  const recorded = predictedBlocks(base);
  return decideBody({
    mode: 'two-way',
    force: false,
    webEdits: 'merge',
    path: 't.md',
    record: { baseMarkdown: base, remoteBlocks: recorded, alignment: undefined, localHash: contentHash(base), remoteBlocksHash: blocksHash(recorded), remoteModifiedTime: MINUTE },
    listedTime: '2026-11-02T09:06Z',
    fileText: mine,
    remote,
    urlOf: undefined,
  });
}

// Model seed 150060: the file and a colleague each typed an HTML comment inside the same multi-line one, which
// ends it early there: both read alike (an unknown block, then the rest as a paragraph), the document was taken
// for the file's own write, and the file's comment was recorded as published and never sent.
test("a colleague's edit reads cannot show, where the file made its own: not taken for the file's own write", () => {
  const base = '# T\n\nIntro.\n\n<!--\nTODO: make sure.\n-->\n\nEnd.\n';
  const decision = editedAlike(base, base.replace('<!--\nTODO', '<!-- <!-- mine u4z -->\nTODO'), base.replace('<!--\nTODO', '<!-- <!-- theirs c7z -->\nTODO'));
  assert.notEqual(decision.kind, 'none', 'the change on both sides is dealt with, not taken as done');
  assert.match(decision.fileText, /mine u4z/, 'the file keeps its comment');
  assert.ok(decision.held !== undefined || (decision.send?.markdown ?? '').includes('mine u4z'), `sent, or held with the reason: ${decision.kind}`);
});

// Model seed 20014: the file and a colleague each added a code block at the same place. Code reads as a block
// of unknown content, so the document read as what the file would publish, and was taken for the file's own
// write whose record was lost: nothing was sent, nothing said, and the file's code never reached the document.
test("a colleague's new code block where the file added its own: not taken for the file's own write", () => {
  const base = '# T\n\nFirst para.\n\nLast para.\n';
  const decision = editedAlike(base, base.replace('Last para.', '```sh\nmaple u17z\n```\n\nLast para.'), base.replace('Last para.', '```sh\nc18z\n```\n\nLast para.'));
  assert.notEqual(decision.kind, 'none', 'the change on both sides is dealt with, not taken as done');
  assert.match(decision.fileText, /maple u17z/, 'the file keeps its code');
  assert.match(decision.fileText, /<!-- kbsync:/, "and marks the colleague's block it cannot read");
  assert.equal(decision.held?.code, 'PLACEHOLDERS', "an overwrite would destroy the colleague's code: held");
});

/** A two-way run's settings, listed in MINUTE. */
const TWO_WAY = { mode: 'two-way', force: false, webEdits: 'merge', listedTime: MINUTE, urlOf: undefined } as const;

/** This machine's record of `text`, agreed on in `time` as its blocks read then. */
const agreedOn = (text: string, time: string): BodyFacts['record'] => {
  const blocks = predictedBlocks(text);
  return { baseMarkdown: text, remoteBlocks: blocks, alignment: undefined, localHash: contentHash(text), remoteBlocksHash: blocksHash(blocks), remoteModifiedTime: time, agreedAt: 1_000_000 };
};

// Model seed 50013: this machine read the document in the minute a colleague then edited inside its code, so
// its time for that reading is unknown; another machine, whose time was known, saw the hidden edit and said so
// in the shared state (its record of this very text, `l`). The file's next edit overwrote the code line.
/** An edit of the file, against another writer's record of this very text that says the document holds more (`l`). */
function editAgainstLossyRecordOfThisText(ourTime: string, theirAgreedAt: number) {
  const blocks = predictedBlocks(OURS);
  return decideBody({
    ...TWO_WAY,
    path: 'semver.md',
    record: agreedOn(OURS, ourTime),
    published: { text: OURS, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: false, agreedAt: theirAgreedAt },
    fileText: OURS.replace('See [the spec]', 'Read [the spec]'),
    remote: blocks,
  });
}

test("another writer's record of this very text saying the document holds more than it holds a full overwrite, said by the hold alone", () => {
  const decision = editAgainstLossyRecordOfThisText('', 1_060_000);
  assert.equal(decision.kind, 'held');
  assert.equal(decision.held?.code, 'FLATTEN');
  // The hold is said once and listed by kbsync resolve; a second notice of the same thing, for a file that takes
  // nothing in, was the false alarm of issue 44 (a machine told of hidden edits in text it already held).
  assert.equal(decision.hiddenVersionSeen, false, 'no second notice beside the hold');
});

// Two workstations syncing at once: B overwrote the document, and A listed it before B's record was published,
// so A took B's write as a plain reading and recorded this very text as holding more (`l`). B, whose time for
// its own write is known, must not take that for news: every later edit of B's was held (FLATTEN) for good.
test("a same-minute record of this very text saying it holds more is not news to a machine whose time for the reading is known", () => {
  const decision = editAgainstLossyRecordOfThisText(MINUTE, 1_000_002);
  assert.equal(decision.kind, 'push');
  assert.equal(decision.hiddenVersionSeen, false);
  assert.equal(decision.lossy, false);
});

// Model seed 90009: this machine had seen a hidden edit; another machine then wrote the whole document from its
// file (a known version, recorded exactly), and this machine took that version in. The hidden edit was kept
// all the same: it held every later edit of this file and was published as news it no longer was.
test("taking in another writer's exact version, written after the hidden edit this machine saw, forgets that edit; one written in its minute does not", () => {
  const written = (minute: string) => {
    const base = facts(1_060_000, 1_000_000);
    return decideBody({ ...base, record: { ...base.record, remoteModifiedTime: '2026-11-02T09:03Z', hiddenEdit: '2026-11-02T09:03Z' }, published: { ...(base.published as PublishedVersion), modifiedTime: minute }, listedTime: minute });
  };
  const later = written(MINUTE);
  assert.equal(later.kind, 'pull');
  assert.equal(later.nextFile, THEIRS);
  assert.equal(later.hiddenEdit, null, 'the whole write replaced it');
  assert.equal(later.lossy, false);
  assert.equal(written('2026-11-02T09:03Z').hiddenEdit, '2026-11-02T09:03Z', 'the same minute cannot tell which came first: it stands');
});

// Soak seed 712: a pull of another writer's version whose read came after a colleague's code save, made after the
// listing: the read showed that version and nothing more, so the run keeps the listed time rather than the unknown one
// a save since would give it, and the save's later minute, at the next listing, is the hidden edit it is.
test("a read that shows exactly another writer's version, listed in its minute or before: nothing the listed time does not stand for", () => {
  const base = facts(1_060_000, 1_000_000);
  const read = (listedTime: string, published: Partial<PublishedVersion> = {}, remote: readonly Block[] = base.remote) =>
    decideBody({ ...base, record: { ...base.record, remoteModifiedTime: '2026-11-02T09:02Z' }, listedTime, published: { ...(base.published as PublishedVersion), ...published }, remote });
  assert.equal(read(MINUTE).listedVersion, true, "listed in that writer's minute");
  assert.equal(read('2026-11-02T09:03Z').listedVersion, true, 'listed before it (its record gives the latest minute its write can bear)');
  const later = read('2026-11-02T09:05Z');
  assert.equal(later.listedVersion, undefined, 'listed after it: the time shows more than the version');
  assert.equal(later.hiddenEdit, '2026-11-02T09:05Z', '…which is a hidden edit');
  assert.equal(read(MINUTE, { modifiedTime: '' }).listedVersion, undefined, "that writer's minute unknown: nothing to compare");
  const edited = predictedBlocks(THEIRS.replace('More text.', 'More text, edited.'));
  assert.equal(read(MINUTE, {}, edited).listedVersion, undefined, 'a read showing a web edit since that version shows more');
});

// Soak seed 714: the first read of a document another writer made in place of this record's own (a move), listed
// while still empty, before its writer's first body: the listing is no time of what the read shows (readingTime).
test("the first read of a document another writer made in place of the record's: a listing before that writer's minute, or before its record gave one, is early", () => {
  const { published: _published, ...base } = facts(1_060_000, 1_000_000);
  const read = (listedTime: string, writersMinute: string, followed = true) =>
    decideBody({ ...base, record: { ...base.record, remoteModifiedTime: writersMinute, recheck: true }, listedTime, ...(followed ? { followed } : {}) });
  assert.equal(read('2026-11-02T09:03Z', MINUTE).listedEarly, true, "listed before that writer's minute");
  assert.equal(read('2026-11-02T09:03Z', '').listedEarly, true, 'listed before its record gave a minute');
  assert.equal(read(MINUTE, MINUTE).listedEarly, undefined, "listed in that writer's minute");
  assert.equal(read('2026-11-02T09:05Z', MINUTE).listedEarly, undefined, 'listed after it');
  assert.equal(read('2026-11-02T09:03Z', MINUTE, false).listedEarly, undefined, 'a record of this very document: its listing stands');
  assert.equal(read('2026-11-02T09:03Z', '').hiddenEdit, null, 'nothing is taken for a hidden edit');
});

// Model seed 100106: a colleague moved the document; the other machine followed the move and published its
// record there; the colleague then edited inside code, a minute later. This machine, which had not listed the
// move, took the later time for the move and overwrote the code edit with its merge.
test("a later time is a hidden edit when that writer's record already has the document where it is now, though this machine had not seen it move", () => {
  const base = facts(1_060_000, 1_000_000);
  const moved = (recordPath: string) =>
    decideBody({ ...base, path: 'guides/semver.md', relocated: true, moved: true, listedTime: '2026-11-02T09:05Z', published: { ...(base.published as PublishedVersion), path: recordPath } });
  const followed = moved('guides/semver.md');
  assert.equal(followed.hiddenEdit, '2026-11-02T09:05Z', 'the move came before that record: the later time is an edit');
  assert.equal(followed.hiddenEditSeen, true);
  assert.equal(followed.send, undefined, 'nothing overwrites it');
  assert.equal(moved('semver.md').hiddenEdit, null, 'a record from before the move: the move explains the time (the stated window)');
  // Model seed 7421: a rename keeps the path, so a record there may come from before it.
  const renamed = decideBody({ ...base, relocated: true, listedTime: '2026-11-02T09:05Z', published: { ...(base.published as PublishedVersion), path: 'semver.md' } });
  assert.equal(renamed.hiddenEdit, null, 'a rename explains the time, whatever path the record gives');
  assert.equal(renamed.nextFile, THEIRS, "that writer's version is taken in");
});

// Model seed 73503: as above, but the other machine's record is of the very version this record holds (it only
// followed the move), and its later write (a link's address) had no record yet. This machine, with an edit of its
// own, took the later time for the move and pushed its file over that write.
test("a later time over the same blocks is a hidden edit when another writer's record of this very version already has the document in the folder it moved to", () => {
  const base = facts(1_000_000, 1_000_000);
  const decide = (recordPath: string, moved: boolean) =>
    decideBody({
      ...base,
      path: 'guides/semver.md',
      fileText: OURS.replace('See [the spec]', 'Read [the spec]'),
      relocated: true,
      ...(moved ? { moved } : {}),
      listedTime: '2026-11-02T09:05Z',
      record: { ...base.record, remoteModifiedTime: '2026-11-02T09:02Z' },
      published: { ...(base.published as PublishedVersion), text: OURS, path: recordPath },
    });
  const followed = decide('guides/semver.md', true);
  assert.equal(followed.held?.code, 'HIDDEN_EDIT', 'the move came before that record: the later time is an edit reads cannot show');
  assert.equal(followed.send, undefined, 'nothing overwrites it');
  assert.equal(decide('semver.md', true).kind, 'push', 'a record from before the move: the move explains the time (the stated window)');
  assert.equal(decide('guides/semver.md', false).kind, 'push', 'a rename alone keeps the path, which tells nothing of when it came: it explains the time');
});

// Model seed 100020: one machine published a rewrapped line (reads show the same blocks); the other had deleted
// the file and restored it, from its own older text: the two machines kept different files for good.
test("a file restored over its deletion takes another writer's later version where reads cannot show it", () => {
  const base = facts(1_060_000, 1_000_000);
  const record = { ...base.record, remoteModifiedTime: MINUTE, lossyBase: false, hiddenEdit: null };
  const restore = (published: PublishedVersion | undefined) => restoredVersion(record, base.remote, 'merge', published).text;
  assert.equal(restore(base.published), THEIRS);
  assert.equal(restore(undefined), OURS, 'without a record: its own last text, as before');
  assert.equal(restore({ ...(base.published as PublishedVersion), agreedAt: 900_000 }), OURS, 'an older record is not the document now');
});

// Issue 44: another machine took a colleague's word edit in on a page with code (its record `l`, `hd: 0`): this
// machine, taking that version, said HIDDEN_EDIT of an edit nobody made. Only a record saying one (`hd: 1`) is said.
describe("another writer's version that holds more than its text", () => {
  const RUNBOOK = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n';
  const TAKEN = RUNBOOK.replace('read this.', 'read this first.');
  const taking = (hidden: boolean): BodyDecision => {
    const now = predictedBlocks(TAKEN);
    const published = { text: TAKEN, remoteBlocksHash: blocksHash(now), modifiedTime: MINUTE, exact: false, hidden, agreedAt: 1_060_000 };
    return decideBody({ ...TWO_WAY, path: 'runbook.md', record: agreedOn(RUNBOOK, MINUTE), published, fileText: RUNBOOK, remote: now });
  };

  test('a visible edit taken in as plain text: taken as that machine holds it, in doubt, and not said', () => {
    const decision = taking(false);
    assert.equal(decision.kind, 'pull');
    assert.equal(decision.nextFile, TAKEN);
    assert.deepEqual([decision.lossy, decision.hiddenBase, decision.hiddenVersionSeen], [true, false, false]);
  });

  test('a hidden edit that machine found: taken, said once, and passed on as one', () => {
    const decision = taking(true);
    assert.equal(decision.nextFile, TAKEN);
    assert.deepEqual([decision.lossy, decision.hiddenBase, decision.hiddenVersionSeen], [true, true, true]);
  });
});

// Soak seed 502: this machine followed another machine's rename a moment after that machine sent the page again
// (the same text), and recorded its agreement, later than that write's, with a time listed before it. The next
// listing showed the write's time: that writer's record of this very text, in that minute, explains it.
test("another writer's record of this very text, agreed before ours, in the minute now listed: its write, no hidden edit", () => {
  const record = agreedOn(OURS, '2026-11-02T09:03Z');
  const blocks = predictedBlocks(OURS);
  const published: PublishedVersion = { text: OURS, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt: 995_000 };
  const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: OURS, remote: blocks, published });
  assert.equal(decided.hiddenEdit, null);
  assert.equal(decided.hiddenEditSeen, false);
  const later = decideBody({ ...TWO_WAY, listedTime: '2026-11-02T09:05Z', path: 'semver.md', record, fileText: OURS, remote: blocks, published });
  assert.equal(later.hiddenEditSeen, true, 'a time after that writer\'s minute is still someone\'s hidden edit');
});

// Soak seed 502: machine B read machine A's write before A's record of it came, and took the change in from the
// plain reading, keeping the front matter it had (`headCarried`). A's record of those very blocks says what A's
// file holds there, front matter included, whichever of the two was agreed first; B's says nothing of it.
describe('a plain reading that kept its front matter, and the writer\'s exact record of the same blocks', () => {
  const HEADED = `---\ntags: [alpha]\n---\n${OURS}`;
  const blocks = predictedBlocks(OURS);
  const exact = (agreedAt: number, text = HEADED): PublishedVersion => ({ text, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt });

  test("the machine that read it takes the writer's front matter, though the writer's record was agreed clearly before its reading", () => {
    const record = { ...agreedOn(OURS, MINUTE), headCarried: true };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: OURS, remote: blocks, published: exact(1_000_000 - 60_000) });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, HEADED);
    assert.equal(decided.headCarried, false, 'its front matter is now known from the writer');
    const unmarked = decideBody({ ...TWO_WAY, path: 'semver.md', record: agreedOn(OURS, MINUTE), fileText: OURS, remote: blocks, published: exact(1_000_000 - 60_000) });
    assert.equal(unmarked.nextFile, undefined, 'a record of its own, not a reading, stays the later version');
  });

  // Model seed 9006: the writer had made a word bold after a link; the reading, which shows no formatting, took
  // it in plainly (into the link's label), in doubt of it. Its body differs from the writer's only for what a
  // read cannot show: no later write, but the very version the reading stands for, and it says more.
  test("a reading in doubt takes the writer's exact record of the same blocks, though their bodies differ in what reads cannot show", () => {
    const FORMATTED = `---\ntags: [alpha]\n---\n${OURS.replace('[the spec](https://example.com/spec).', '[the spec](https://example.com/spec)**u2z** .')}`;
    const plain = OURS.replace('[the spec](https://example.com/spec).', '[the specu2z ](https://example.com/spec).');
    const read = predictedBlocks(splitText(FORMATTED).body);
    assert.equal(blocksHash(read), blocksHash(predictedBlocks(plain)), 'the reading reads as the writer\'s version');
    const record = { ...agreedOn(plain, MINUTE), headCarried: true, lossyBase: true };
    const writer: PublishedVersion = { text: FORMATTED, remoteBlocksHash: blocksHash(read), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_000 - 60_000 };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: plain, remote: read, published: writer });
    assert.equal(decided.nextFile, FORMATTED, "the writer's version, its bold word and front matter, comes into the file");
    assert.equal(decided.lossy, false, 'and the document is known exactly again');
  });

  test("a front matter changed here since the reading is this machine's edit, merged with the writer's as any other", () => {
    const record = { ...agreedOn(OURS, MINUTE), headCarried: true };
    const edited = `---\ntags: [mine]\n---\n${OURS}`;
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: edited, remote: blocks, published: exact(1_000_000 - 60_000) });
    assert.equal(decided.kind, 'conflict', 'both changed the front matter');
  });

  test('the writer is not told the reading as news: its own exact record of those blocks says more, however much later the reading was agreed', () => {
    const record = { ...agreedOn(HEADED, MINUTE), remoteBlocks: blocks, remoteBlocksHash: blocksHash(blocks) };
    const reading: PublishedVersion = { ...exact(1_000_000 + 60_000, OURS), headCarried: true };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: HEADED, remote: blocks, published: reading });
    assert.equal(decided.kind, 'none');
    assert.equal(decided.nextFile, undefined, "the writer's front matter stays");
    const plain = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: HEADED, remote: blocks, published: { ...reading, headCarried: false } });
    assert.equal(plain.nextFile, OURS, 'the same version without the mark would be taken, front matter and all');
  });

  // Model seed 6034: the writer was stopped after its write (a link's address here, a code line and bold words there),
  // and published its record only a minute after this machine had read the write plainly and recorded that reading.
  test("the machine that read it plainly takes the writer's body where reads cannot see, though the writer's record was agreed clearly before its reading", () => {
    const record = { ...agreedOn(OURS, MINUTE), headCarried: true, lossyBase: true };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: OURS, remote: blocks, published: exact(1_000_000 - 60_000, THEIRS) });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, THEIRS, 'the address the reading could not see comes in');
    assert.equal(decided.lossy, false, 'the document holds exactly that write: no longer in doubt');
    const known = decideBody({ ...TWO_WAY, path: 'semver.md', record: { ...record, lossyBase: false }, fileText: OURS, remote: blocks, published: exact(1_000_000 - 60_000, THEIRS) });
    assert.equal(known.nextFile, undefined, 'a record that knows its body: an older write of another body, left alone');
  });

  // Model seed 5995: this machine took the page in from the writer's earlier record after the writer's write of
  // emphasis had landed; the writer's record of that write, made from this very version (`b`), came later still.
  test("a write made from this record's very version is its later one, though agreed before this record", () => {
    const record = agreedOn(OURS, MINUTE);
    const child: PublishedVersion = { ...exact(1_000_000 - 60_000, THEIRS), builtOn: contentHash(OURS) };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: OURS, remote: blocks, published: child });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, THEIRS, 'the address the reading could not see comes in');
    assert.equal(decided.hiddenEditSeen, false, 'nobody edited where reads cannot see');
    const parent = decideBody({ ...TWO_WAY, path: 'semver.md', record: { ...record, builtOn: contentHash(THEIRS) }, fileText: OURS, remote: blocks, published: child });
    assert.equal(parent.nextFile, undefined, 'a record made from that very version is the later one');
  });

  // Model seed 4011: the machine whose front matter was carried then wrote a change of its own where reads cannot
  // see (a link's address here, a code line there): the same blocks, another body. Not a reading of this machine's
  // version but a later write, taken in; kept out, a CI run of this machine's files wrote the old text back over it.
  test("that machine's later exact write of another body of the same blocks is taken in, its mark notwithstanding", () => {
    const record = { ...agreedOn(HEADED, MINUTE), remoteBlocks: blocks, remoteBlocksHash: blocksHash(blocks) };
    const written: PublishedVersion = { ...exact(1_000_000 + 60_000, THEIRS), headCarried: true };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: HEADED, remote: blocks, published: written });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, `---\ntags: [alpha]\n---\n${THEIRS}`, "its body comes in, this machine's front matter stays");
  });

  // Model seed 718: the other machine published its front matter, then took a colleague's words in plainly, keeping
  // it. This record is of older blocks than that reading (the page as first synced): none of this machine's writes
  // was read there without its front matter, and the front matter kept is the other machine's own change.
  test("a reading of other blocks than this record's brings the front matter it kept: that machine's own change", () => {
    const words = `---\ntags: [alpha]\n---\n${OURS.replace('More text.', 'More text, from the web.')}`;
    const read = predictedBlocks(splitText(words).body);
    const reading: PublishedVersion = { text: words, remoteBlocksHash: blocksHash(read), modifiedTime: MINUTE, exact: false, agreedAt: 1_000_000 + 60_000, headCarried: true };
    const decided = decideBody({ ...TWO_WAY, path: 'semver.md', record: agreedOn(OURS, MINUTE), fileText: OURS, remote: read, published: reading });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, words, "the colleague's words and the other machine's front matter come in");
  });
});

// Soak seed 502: another writer's version made without seeing this machine's own front matter change (it edited
// the body meanwhile) still has the front matter that change replaced: no change of theirs.
describe("another writer's version that still has the front matter this machine's change replaced", () => {
  const HEADED = `---\ntags: [alpha]\n---\n${OURS}`;
  const blocks = predictedBlocks(OURS);
  const record = { ...agreedOn(HEADED, MINUTE), remoteBlocks: blocks, remoteBlocksHash: blocksHash(blocks), replacedHead: '' };
  const theirs = (head: string): PublishedVersion => {
    const text = `${head}${OURS.replace('More text.', 'More text, theirs.')}`;
    return { text, remoteBlocksHash: blocksHash(predictedBlocks(splitText(text).body)), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 };
  };
  const decide = (published: PublishedVersion): BodyDecision =>
    decideBody({ ...TWO_WAY, path: 'semver.md', record, fileText: HEADED, remote: predictedBlocks(splitText(published.text).body), published });

  test('keeps this machine\'s front matter, and takes their body edit', () => {
    const decided = decide(theirs(''));
    assert.equal(decided.nextFile, `---\ntags: [alpha]\n---\n${OURS.replace('More text.', 'More text, theirs.')}`);
    assert.equal(decided.conflicts.length, 0);
    assert.equal(decided.replacedHead, '', 'still the front matter this machine replaced');
  });

  test('a front matter of their own making is theirs: taken, and this machine replaced none of it', () => {
    const decided = decide(theirs('---\ntags: [beta]\n---\n'));
    assert.equal(decided.nextFile, `---\ntags: [beta]\n---\n${OURS.replace('More text.', 'More text, theirs.')}`);
    assert.equal(decided.replacedHead, null);
  });
});

// Soak seed 601: this machine rewrapped a line and wrote it; the other machine read that write plainly (a rewrap
// reads the same), kept its own one-line source, and published it, agreed a moment after ours. Taken for a racing
// save that put our line back, it was "repaired" with the same write on every run, without end.
test('a version agreed on the very blocks our last write left holds no lost update: nothing is sent again', () => {
  const prior = '# T\n\nThrows (`AssertionError`), always.\n\nEnd.\n';
  const ours = prior.replace('always.', '\nalways.').replace(', \n', ',\n');
  const record = { ...agreedOn(ours, MINUTE), publishedOver: prior };
  const blocks = predictedBlocks(ours);
  const theirs: PublishedVersion = { text: prior, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_500 };
  const decided = decideBody({ ...TWO_WAY, path: 'devlop.md', record, fileText: ours, remote: blocks, published: theirs });
  assert.equal(decided.send, undefined, 'nothing is sent again');
  assert.deepEqual(decided.restored, []);
});

// Convergence soak 741: this machine read another's write (a list item rewrapped, its second line left lazy) before
// that writer's record came, and took the item in plainly, laid out as its own Markdown writer lays it (indented).
// Both versions were made from one version, of the very blocks, their front matter carried alike (a colleague's edit).
describe("a plain reading of another writer's write, and that writer's exact record of it", () => {
  const BEFORE = '# Differences\n\n1. Object keys are sorted instead of using the\n   insertion order.\n1. BigInt values are stringified.\n';
  const LAZY = BEFORE.replace('using the\n   insertion', 'using\nthe insertion');
  const INDENTED = BEFORE.replace('using the\n   insertion', 'using\n   the insertion');
  const blocks = predictedBlocks(LAZY);
  const reading = { ...agreedOn(INDENTED, MINUTE), agreedAt: 1_000_000 + 60_000, builtOn: contentHash(BEFORE), headCarried: true, readPlainly: true };
  const written: PublishedVersion = { text: LAZY, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt: 1_000_000, headCarried: true, builtOn: contentHash(BEFORE) };

  test("takes the writer's text, though agreed before the reading: nothing to send, nothing said", () => {
    assert.equal(blocksHash(predictedBlocks(INDENTED)), blocksHash(blocks), 'the very blocks');
    const decided = decideBody({ ...TWO_WAY, path: 'diff.md', record: reading, fileText: INDENTED, remote: blocks, published: written });
    assert.equal(decided.kind, 'pull');
    assert.equal(decided.nextFile, LAZY);
    assert.equal(decided.send, undefined);
    assert.equal(decided.readPlainly, false, 'the base is the source now');
    assert.deepEqual([decided.simplified, decided.unseenFormatting, decided.conflicts], [[], [], []]);
  });

  test("keeps an edit made here since, with the writer's layout where the file was not edited", () => {
    const edited = INDENTED.replace('stringified.', 'stringified (edited here).');
    const decided = decideBody({ ...TWO_WAY, path: 'diff.md', record: reading, fileText: edited, remote: blocks, published: written });
    assert.equal(decided.nextFile, LAZY.replace('stringified.', 'stringified (edited here).'));
    assert.equal(decided.conflicts.length, 0);
  });

  test("a version of this machine's own (no plain reading), or one the other read plainly too, is not taken for the source", () => {
    const own = decideBody({ ...TWO_WAY, path: 'diff.md', record: { ...reading, readPlainly: false }, fileText: INDENTED, remote: blocks, published: written });
    assert.equal(own.nextFile, undefined, 'two writes of one version: the later agreed stands here');
    const plain = decideBody({ ...TWO_WAY, path: 'diff.md', record: reading, fileText: INDENTED, remote: blocks, published: { ...written, readPlainly: true } });
    assert.equal(plain.nextFile, undefined, 'two readings: no source among them');
    const later = decideBody({ ...TWO_WAY, path: 'diff.md', record: { ...reading, builtOn: contentHash(LAZY) }, fileText: INDENTED, remote: blocks, published: written });
    assert.equal(later.nextFile, undefined, 'a version made from the writer\'s own is the later one');
  });

  test('a reading taken in from the plain reading is marked so; one with a write of its own is not', () => {
    const record = agreedOn(BEFORE, MINUTE);
    const pulled = decideBody({ ...TWO_WAY, path: 'diff.md', record, fileText: BEFORE, remote: blocks });
    assert.equal(pulled.nextFile, INDENTED, 'laid out as this machine writes Markdown');
    assert.equal(pulled.readPlainly, true);
    const mine = BEFORE.replace('stringified.', 'stringified (edited here).');
    const merged = decideBody({ ...TWO_WAY, path: 'diff.md', record, fileText: mine, remote: blocks });
    assert.ok(merged.send !== undefined, 'the file\'s edit is sent');
    assert.equal(merged.readPlainly, false);
  });
});
