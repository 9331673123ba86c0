import { KbsyncError } from '../../errors.js';
import type { DocumentRecord } from '../../ledger/index.js';
import { backupText, hashText, type TextFile } from '../../local/index.js';
import { blocksToMarkdown, contentKey, contentOfBlock, predictedBlocks, type AppendChange } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import { announceWrite } from '../state/announce.js';
import { crashPoint } from '../run/crash-points.js';
import { laterThan, madeUnfilled, type BodyDecision, type Send } from '../decide/body.js';
import { HELD_REASONS, heldMessage, type HeldCode } from '../decide/held.js';
import { agrees } from '../decide/push-markdown.js';
import type { RemoteDoc } from '../decide/types.js';
import { splitText } from '../content/document-text.js';
import { encodeSentImages } from '../../images/sent.js';
import { fileWriteFields, pushIntentPayload } from '../run/interrupted.js';
import { withIntent } from './intent.js';
import { fingerprintOf, replaceLocal, writeConflictCopy } from './local-files.js';
import { applyMembers } from './members.js';
import { minutePassed } from '../state/minutes.js';
import { recordAgreement, recordHold, remoteTimeOf, writtenTime, type RemoteTime } from './record.js';
import { nodeOf } from '../views/assess.js';
import { ourWriteUnder } from './standing-write.js';

export type DocOutcome = {
  readonly path: string;
  /** `recorded`: the file changed only where the document holds nothing (front matter, line endings): kept in the shared state. */
  readonly result: 'unchanged' | 'recorded' | 'pushed' | 'pulled' | 'merged' | 'conflict' | 'held';
  readonly detail?: string;
  readonly conflictPath?: string;
  /** A hold that already stood before this run: not news, so the daemon does not say it again. */
  readonly repeated?: boolean;
  /**
   * A hold or a wait said with nothing recorded to tell the next run it was (a file with no ledger row yet, or a wait
   * decided afresh by each run): the daemon remembers it itself, to say it once while it stands (daemon/unrecorded-said.ts).
   */
  readonly unrecorded?: true;
  /** A held move: the path its record (and document) stays at, while the file is at `path`. */
  readonly from?: string;
  /** A hold decided by a check within another action (the read after a move-local), whose own decision names none. */
  readonly reason?: HeldCode;
};

const RESULT = { none: 'unchanged', push: 'pushed', pull: 'pulled', merge: 'merged', conflict: 'conflict', held: 'held' } as const satisfies Record<BodyDecision['kind'], DocOutcome['result']>;

/**
 * Carries out a body decision for a synced document: the file rewritten (backed up first), the conflict
 * copy written, the document appended to or overwritten (backed up first) and read back, members
 * applied, and the new agreement recorded in the transaction that closes the intent.
 */
export async function applyBody(
  ctx: SyncContext,
  record: DocumentRecord,
  listed: RemoteDoc | undefined,
  before: TextFile,
  remote: readonly Block[],
  body: BodyDecision,
): Promise<DocOutcome> {
  const path = record.path;
  const holdOn = (text: string): DocOutcome | undefined => {
    if (body.kind !== 'held' || !body.held) return undefined;
    const fresh = recordHold(ctx, path, { code: body.held.code, localHash: hashText(text), remoteModifiedTime: heldTime(listed, record, body) });
    return { path, result: 'held', detail: heldMessage(body.held, path), ...(fresh ? {} : { repeated: true }) };
  };
  // Nothing decided yet (BodyDecision.waiting): nothing of the document is recorded, so the next run reads it again.
  // A wait that leaves the file holding what its document does not (BODY_COMING) is remembered as a hold all the
  // same, so it is news once: said at every daemon cycle while it stood, it was a warning and a notice a sweep (issue
  // 44). A one-shot run says it each time, as it does every hold; the daemon, once, and then what ended it.
  // A file's edit waiting for the record that may explain its document's time (JUST_EDITED) is decided afresh by the
  // next run: nothing recorded (a recorded hold would stand, and keep it from being judged), so the daemon remembers
  // it said it, as a waiting move's (act/move.ts).
  if (body.waiting === true && body.held?.code === 'JUST_EDITED') return { path, result: 'held', detail: heldMessage(body.held, path), unrecorded: true };
  if (body.waiting === true) return holdOn(before.text) ?? { path, result: 'unchanged' };
  // A held write with nothing to take in is only remembered; one whose document changed still takes the
  // change into the file (the push waits, the pull does not), and the hold is remembered on the new file.
  // A held first push into our own document made for a moved page agrees on nothing new either: its record's base is
  // that page, which the document does not hold yet (madeUnfilled; recorded as agreed on nothing, the empty document
  // was pulled over the file on the other machines, model seed 6018).
  const agreesNothing = body.baseText === record.baseMarkdown || (body.baseText === '' && madeUnfilled(record));
  if (body.kind === 'held' && body.nextFile === undefined && agreesNothing) return holdOn(before.text) as DocOutcome;
  const readTime = body.send ? undefined : await readingTime(ctx, listed, record, body);
  // The file's new text, unless it holds it already: an interrupted run's own write, decided again (fileBeforeOwnWrite).
  const rewrite = body.nextFile === before.text ? undefined : body.nextFile;
  const done = await withIntent(
    ctx,
    // What is sent, and agreed on after it: a run killed between the write and its record is recognised
    // by the next as its own write (sync/interrupted.ts), not taken for a colleague's.
    // And what the file is written with, over what: a run killed after that write finds it its own (fileBeforeOwnWrite).
    {
      kind: 'sync',
      subject: path,
      payload: { ...pushIntentPayload(record.docKey, ctx.mode, body.send?.markdown, body.baseText, ctx.serverNow().getTime()), ...(rewrite ? fileWriteFields(before.text, rewrite) : {}) },
    },
    async (note) => {
      let fingerprint = await fingerprintOf(ctx, path);
      if (rewrite !== undefined) {
        crashPoint('mid-pull');
        fingerprint = await replaceLocal(ctx, path, before, rewrite);
        crashPoint('after-local-write');
      }
      const conflictPath = body.conflictCopy === undefined ? undefined : await writeConflictCopy(ctx, path, body.conflictCopy);
      // The minute the write was made in, for its record and for a run killed before it (interrupted.ts withLandedPush).
      const written = (): RemoteTime => {
        const time = writtenTime(ctx);
        note({ written: time.modifiedTime });
        return time;
      };
      const sent = body.send ? await send(ctx, path, record.docKey, remote, body.send, body.baseText, written) : undefined;
      const members = ctx.mode === 'pull' ? record.members : await applyMembers(ctx, record, splitText(body.fileText).frontMatter.members);
      return { fingerprint, conflictPath, remoteAfter: sent?.blocks ?? remote, wroteAt: sent?.wroteAt, members };
    },
    (done) =>
      recordAgreement(ctx, {
        ...record,
        members: done.members,
        fileText: body.fileText,
        baseText: body.baseText,
        fingerprint: done.fingerprint,
        remoteBlocks: done.remoteAfter,
        // Read (nothing sent), or the minute the write's answer came in (send): one of the two, always.
        remoteTime: (done.wroteAt ?? readTime) as RemoteTime,
        // A rename in the web editor, seen now, excuses the time it moved only this once.
        ...(listed ? { listedTitle: listed.title } : {}),
        // A new clash opens a conflict (with the text it was found against, for kbsync resolve); any other
        // agreement closes one, since an open conflict is held before it gets here.
        conflictPath: done.conflictPath ?? null,
        ...(done.conflictPath && body.conflictBase !== undefined ? { conflictBase: body.conflictBase } : {}),
        ...(body.send ? { wroteOver: body.theirs } : {}),
        // This machine's own change kept over another writer's later version is agreed now, though its text is as recorded.
        ...(body.keptUnpublished ? { agreedAt: 0 } : {}),
        hiddenEdit: body.hiddenEdit,
        // A check that found both sides as recorded: the read-back of our write, or a time learnt.
        ...(body.kind === 'none' && !body.localChanged && !body.remoteChanged ? { readBack: true } : {}),
        lossyBase: body.lossy,
        formattingOnly: body.formattingOnly,
        hiddenBase: body.hiddenBase,
        headCarried: body.headCarried,
        readPlainly: body.readPlainly,
        replacedHead: body.replacedHead,
        ...(body.builtOn !== undefined ? { madeFrom: body.builtOn } : {}),
        ...(body.send && !body.send.append ? { imagesSent: encodeSentImages(body.send.images) } : {}),
      }),
  );
  const held = holdOn(body.fileText);
  if (held) return held;
  const simplified =
    body.simplified.length > 0
      ? `FORMATTING_SIMPLIFIED: the knowledge base's edit at line ${body.simplified.join(', ')} crossed a link or a code span, so that block's formatting is now plain text, all or in part; the file as it was is in ${ctx.stateDir}/backups`
      : undefined;
  const unseen = body.unseenFormatting.length > 0 ? `FORMATTING_UNSEEN: ${unseenFormatting(body.unseenFormatting)}` : undefined;
  const hidden =
    body.hiddenEditSeen && body.hiddenEdit !== null
      ? `HIDDEN_EDIT: ${HELD_REASONS.HIDDEN_EDIT}`
      : body.hiddenVersionSeen
        ? "HIDDEN_EDIT: the file now has another kbsync machine's version of this document, which holds edits made in the web editor that reads cannot show (inside code, a table or an image); so that they stay, your next edit of this file will be held (FLATTEN) rather than overwrite them: make such changes in the web editor"
        : undefined;
  const repaired = body.restored.length > 0 && body.send ? `LOST_UPDATE_REPAIRED: ${repairedDetail(body.restored, ctx.stateDir)}` : undefined;
  const detail = [done.conflictPath ? conflictDetail(path, body, done.conflictPath) : undefined, repaired, simplified, unseen, hidden].filter(Boolean).join('; ');
  // "Unchanged" is said only of bytes that did not change (README "What is safe", promise 1).
  if (body.kind === 'none' && body.localChanged && body.baseText === body.fileText) return { path, result: 'recorded', detail: [RECORDED, detail].filter(Boolean).join('; ') };
  return { path, result: RESULT[body.kind], ...(done.conflictPath ? { conflictPath: done.conflictPath } : {}), ...(detail ? { detail } : {}) };
}

/**
 * The document's time a hold was decided on: the listing's, else the record's; or the hidden edit's, when later.
 * A run that lists nothing (the daemon's local cycle) asks the time of a document whose file changed, and finds a
 * hidden edit on it: kept with the record's older minute, that hold was said again by the sweep that listed the
 * hidden edit's minute (soak 721, replayed). That time is safe to stand on: a hidden edit seen on a time asked after the read
 * is decided on a read made after it (assess.ts readAgainIfHidden), and one listed was listed before the read.
 */
const heldTime = (listed: RemoteDoc | undefined, record: DocumentRecord, body: Pick<BodyDecision, 'hiddenEdit'>): string => {
  const time = listed?.modifiedTime ?? record.remoteModifiedTime;
  return body.hiddenEdit !== null && laterThan(body.hiddenEdit, time) ? body.hiddenEdit : time;
};

/**
 * The lines whose words came from the web editor (merge.webEdits `merge`): said once, as the edit comes in, since
 * the push that will later write over their formatting cannot know there was any.
 */
const unseenFormatting = (lines: readonly number[]): string => {
  const one = lines.length === 1;
  return (
    `${one ? 'line' : 'lines'} ${lines.join(', ')} ${one ? 'has' : 'have'} words a colleague wrote in the web editor, read as plain text: formatting they gave ` +
    `them there is not in the file, and your next edit publishes ${one ? 'the line as the file has it' : 'the lines as the file has them'}`
  );
};

/**
 * A lost update repaired (MergeResult.restored): said once, as the repair is published, since the racing writer's
 * save is gone from the document afterwards but for the backup made before the write.
 */
const repairedDetail = (lines: readonly number[], stateDir: string): string =>
  `another writer's save, made from a copy read before your last push landed, put back what you had published at line ${lines.join(', ')} ` +
  `(a lost update: the service has no conditional write); your version is published again with that writer's other changes, and the document as their save left it is in ${stateDir}/backups`;

const RECORDED = 'changed only where the knowledge base holds nothing (front matter, line endings): kept in the shared state, so other machines get it';

/** Which blocks clash, and why, so the person knows where to look before running kbsync resolve. */
function conflictDetail(path: string, body: BodyDecision, copy: string): string {
  const headLines = splitText(body.fileText).head.split('\n').length - 1;
  const lines = (conflicts: BodyDecision['conflicts']): string => conflicts.map((c) => c.position.line + headLines).join(', ');
  return `both sides changed line ${lines(body.conflicts)}: your version stays in the file, theirs is in ${copy}, and the knowledge base keeps theirs until you run \`kbsync resolve ${path}\``;
}

/**
 * Backs up the document's body, writes (append or overwrite) and returns what it holds after (rule 8). A push
 * without a ledger announces the write first, with `agreed` (the file text the document will then hold); once
 * the write is answered, `written` notes its minute in the intent, and it is the minute recorded: taken as the
 * answer comes, not as the record is made. An answer to another call between the two (the read-back, another
 * file's call in the same run) may bear a later minute, and a colleague's save in it then bore the minute this
 * write was recorded with: a code line saved so was overwritten unseen by this machine's next push (soak seed 716).
 *
 * An append's answer is the paragraph's whole text: the blocks after it are known without a read. An
 * overwrite is read back by the first read of the document once its minute is over (decide/read-back.ts):
 * until then the record holds the blocks it should make, to be checked (unless they read alike: readAlike). A read right after it would only be
 * read again, since the service's minute stamps cannot tell a later edit in the same minute from this write;
 * one read after the minute does both. So a write costs one call, and its read-back one, whoever reads next:
 * this machine's next run or cycle, or another machine (a CI job's next run, without this ledger, reads the
 * shared state's record of it, whose blocks hash is the prediction's too).
 */
async function send(
  ctx: SyncContext,
  path: string,
  docKey: DocumentRecord['docKey'],
  before: readonly Block[],
  outgoing: Send,
  agreed: string,
  written: () => RemoteTime,
): Promise<{ readonly blocks: readonly Block[]; readonly wroteAt: RemoteTime }> {
  if (before.length > 0) await backupText(ctx.stateDir, 'remote', path, blocksToMarkdown(before), { now: ctx.now() });
  await announceWrite(ctx, path, docKey, agreed);
  let wroteAt: RemoteTime;
  if (outgoing.append) {
    const whole = await ctx.client.appendText(docKey, outgoing.append.blockId, outgoing.append.text);
    wroteAt = written();
    crashPoint('after-overwrite');
    const after = whole === undefined ? undefined : appended(before, outgoing.append, whole);
    if (after) return { blocks: after, wroteAt };
  } else {
    await ctx.client.overwrite(docKey, outgoing.markdown);
    wroteAt = written();
    crashPoint('after-overwrite');
    const predicted = predictedBlocks(outgoing.markdown);
    if (!readAlike(predicted)) return { blocks: predicted, wroteAt };
  }
  const after = await ctx.client.readBlocks(docKey);
  if (agrees(outgoing.markdown, after)) return { blocks: after, wroteAt };
  // Someone else wrote between our write and this read: recording their body as what we pushed would hide both edits
  // from every later run. Our write, with their words over it, stands as written (their save is the next read's
  // news); any other shape fails the write, leaving the ledger as it was, so the next run merges.
  const ours = ourWriteUnder(predictedBlocks(outgoing.markdown), after);
  if (!ours) throw changedDuringWrite(path);
  return { blocks: ours, wroteAt };
}

/**
 * Does a body hold blocks that read alike (code, comments, link definitions: all read as `unknown`)? A prediction
 * has no ids, so a merge pairs its blocks with a read by what they say: a colleague's deletion of one of them before
 * the next read could be taken for a deletion of another, and a different block lost. Such a write is read back
 * at once, for the ids the service gave its blocks (and re-checked once its minute is over, as any early read).
 * The later read cannot give them instead: a deletion in the write's own minute bears its time, and what is left
 * reads like either block (issue 48: the fourth call a page; test/integration/sync/alike-blocks-read-back.test.ts).
 */
const readAlike = (blocks: readonly Block[]): boolean => new Set(blocks.map((block) => contentKey(contentOfBlock(block)))).size < blocks.length;

/**
 * The blocks after an append, from its answer: the paragraph as it now reads. Undefined when the answer is not
 * the text appended to the text read (someone else wrote the paragraph meanwhile): a read then tells.
 */
function appended(before: readonly Block[], append: AppendChange, whole: string): readonly Block[] | undefined {
  const target = before.find((block) => block.id === append.blockId);
  if (target?.type !== 'paragraph' || whole !== target.text + append.text) return undefined;
  return before.map((block) => (block === target ? { ...target, text: whole } : block));
}

function changedDuringWrite(path: string): KbsyncError {
  return new KbsyncError(
    'REMOTE_CHANGED_DURING_WRITE',
    `"${path}" changed in the knowledge base while kbsync was writing it (someone else saved it at the same moment). ` +
      'Nothing was lost: your version is in the file, theirs is in the knowledge base.',
    { hint: 'Sync again: the next run merges both versions (a conflict copy is written if they clash).' },
  );
}

/**
 * May the blocks read be newer than the listing's time says? Only once the listed minute is over: a save made
 * after the listing then bears a later minute than the one listed, and the read may show it. A colleague's
 * second save between a run's listing and its read (soak seed 12) was recorded with the listing's minute, so
 * its own minute, at the next listing, over blocks already pulled, was taken for an edit reads cannot show.
 * A change the read shows and the listing's time does not (no later than the record's) is such a save too (a
 * sibling CI job's write). While the listed minute is still the service's, a later save bears that minute: the
 * time is known, and keeping it is what lets a later edit where reads cannot see show as a later minute (model
 * seed 3031). A record whose time was never learnt (a CI job's write) cannot tell a listing that shows the
 * change from one made before it: recording that listing's time set an older time than the document's over a
 * sibling job's record, and every reader took the difference for a hidden edit (state chaos seed 4).
 */
function timeMayBeStale(ctx: SyncContext, listed: RemoteDoc | undefined): boolean {
  return !listed || minutePassed(listed.modifiedTime, ctx.serverNow());
}

/**
 * The time of a version another writer made, read after a listing that may be older than it (BodyDecision.listedEarly):
 * the minute its writer's record gave, or while that record gave none, the latest minute the service can have
 * stamped anything the read showed (writtenTime); either re-checked by the next read. Taken as unknown instead, a
 * colleague's edit inside code after the read would be taken for the time the next listing shows, and overwritten.
 * Only an edit reads cannot show made before the read (in the seconds between that writer's first body and it) is
 * left unseen, where the listing's minute saw that writer's body itself as such an edit (soak seed 714).
 */
const writersTime = (ctx: SyncContext, record: DocumentRecord): RemoteTime => (record.remoteModifiedTime !== '' ? { modifiedTime: record.remoteModifiedTime, recheck: true } : writtenTime(ctx));

/**
 * The document's time for an agreement this run reads (nothing sent). When the listing's time may be older than
 * the change the read shows, the document is asked once more, after the read (one call, for a pull whose listed
 * minute was over by its read): still the listed time, the change was made before the listing (another machine's
 * write in the minute of this one's, model seed 200004: taken for unknown, it let a colleague's later edit where
 * reads cannot see go unnoticed and be overwritten); a later time, a save came since, and the time stays unknown
 * until a listing shows it.
 * Unless the read shows nothing the listed time does not stand for (BodyDecision.listedVersion: another writer's
 * version, of a minute no earlier than the listed one): a save since is then one no read shows, so the listed time
 * is kept, with no call, and the next listing's later minute is the hidden edit it is. Taken for unknown, that
 * minute explained nothing, and the next local edit overwrote a colleague's code line saved between a pull's
 * listing and its read (soak seed 712). A run that listed nothing has no such time: it keeps the unknown one.
 * A listing that may be older than the very version read (BodyDecision.listedEarly) is no time of it: that version's
 * is its writer's (writersTime).
 */
async function readingTime(ctx: SyncContext, listed: RemoteDoc | undefined, record: DocumentRecord, body: Pick<BodyDecision, 'remoteChanged' | 'listedVersion' | 'listedEarly'>): Promise<RemoteTime> {
  if (body.listedEarly === true && timeMayBeStale(ctx, listed) && (!body.remoteChanged || body.listedVersion === true)) return writersTime(ctx, record);
  if (!body.remoteChanged || !timeMayBeStale(ctx, listed) || (listed !== undefined && body.listedVersion === true)) return remoteTimeOf(ctx, listed, record, false);
  const now = listed === undefined ? undefined : await nodeOf(ctx.client, record);
  return remoteTimeOf(ctx, listed, record, now === undefined || now.modifiedTime !== listed?.modifiedTime);
}
