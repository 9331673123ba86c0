import { isNotFound, type KbClient } from '../../api/index.js';
import { KbsyncError } from '../../errors.js';
import type { DocumentRecord, OpenIntent } from '../../ledger/index.js';
import { hashText, type TextFile } from '../../local/index.js';
import type { Block } from '../../model/blocks.js';
import { decideAdopt } from '../decide/adopt.js';
import { AGREED_SLACK_MS, decideBody, decideFirstPush, laterThan, newerThanRecord, type BodyDecision, type BodyFacts, type PublishedVersion } from '../decide/body.js';
import { lineEndingsOf } from '../../markdown/line-endings.js';
import { held, type Held } from '../decide/held.js';
import { decideIncoming } from '../decide/incoming.js';
import { decideMove, type MoveDecision } from '../decide/move.js';
import { decideDelete, decideTrash, restoredVersion, standsOverRecord, type DeleteDecision } from '../decide/removals.js';
import type { Action, ActionKind, DecisionKind, Layout, ReadingMarks, RecordEntry, RemoteDoc, SyncMode } from '../decide/types.js';
import { splitText } from '../content/document-text.js';
import { asDecided, type Detail, type Place } from '../run/detail.js';
import { fileBeforeOwnWrite, interruptedFollow, interruptedPull, interruptedRemoval, withLandedPush } from '../run/interrupted.js';
import { standFor, withReadBack } from '../decide/read-back.js';
import { placeholdsSource } from '../decide/plain-reading.js';
import { sharedRecord } from '../state/shared-record.js';
import { blocksHash, blocksToMarkdown, predictedBlocks, sameMarkdown } from '../../markdown/index.js';
import type { WorkspaceId } from '../../model/ids.js';
import type { UrlOfPath } from '../content/links.js';
import { MAX_TITLE_CHARS, pathOf } from '../decide/placement.js';
import { followPatch } from '../decide/follow.js';
import { tookExactly, type SharedVersions } from '../state/published-version.js';
import type { WebEditsPolicy } from '../decide/web-edits.js';
import { minutePassed, underAMinuteOld } from '../state/minutes.js';

/**
 * The decision an action stands for before its reads: what an action that failed before it was decided, or a
 * preview made offline, is reported as. Its own tag, but for the three whose words differ (DecisionKind): an
 * action left out here does not compile.
 */
export const plannedKind = ({ kind }: Pick<Action, 'kind'>): DecisionKind => (kind === 'adopt' ? 'link' : kind === 'relink' || kind === 'check' ? 'none' : kind);

/** The reads a decision needs, answered by the run (its context) or by a preview (read-only). */
export type AssessIO = {
  readonly mode: SyncMode;
  readonly force: boolean;
  readonly webEdits: WebEditsPolicy;
  readonly layout: Layout;
  readonly urlOf: UrlOfPath | undefined;
  readonly workspaceId: WorkspaceId;
  /** The releases the plan honours (kbsync resolve --mine / --theirs), by path. */
  readonly released?: ReadonlyMap<string, 'mine' | 'theirs'>;
  readBlocks(docKey: DocumentRecord['docKey']): Promise<readonly Block[]>;
  record(path: string): DocumentRecord | undefined;
  /** The document as this run's listing showed it. */
  listed(docKey: DocumentRecord['docKey']): RemoteDoc | undefined;
  /**
   * Where the document is and when it last changed, for a run that did not list it: one call, made only
   * before a write could destroy what reads cannot show (an edit inside code leaves the blocks as they were).
   */
  node(record: DocumentRecord): Promise<Pick<RemoteDoc, 'modifiedTime' | 'title' | 'parentTreeNodeId'> | undefined>;
  /** A file's text as last synced, from the shared state's sources (read once per run, only when asked). */
  source(hash: string): Promise<string | undefined>;
  /**
   * What another kbsync writer last published of the document, when the shared state has a version other than
   * this record's. `load`: read the state if this run has not (else only a state read with the listing is asked).
   * `remoteHash`: what the document's blocks hash to now (a write announced by a killed run counts if they are its text's).
   */
  published(record: { readonly docKey: string; readonly localHash: string; readonly baseMarkdown?: string; readonly lossyBase: boolean; readonly formattingOnly?: boolean }, load: boolean, remoteHash?: string): Promise<PublishedVersion | undefined>;
  /** Another branch of the version a record was made from, from a state this run read already (BodyFacts.fork; SharedVersions.fork). */
  fork(record: Pick<DocumentRecord, 'docKey' | 'localHash' | 'remoteBlocksHash' | 'builtOn' | 'inexact'>, overtaken?: 'overtaken'): Promise<BodyFacts['fork'] | undefined>;
  /** A write a run announced in the shared state after `since` and made, which that run's kill kept from its record (see WriteRecord). */
  announced: SharedVersions['announced'];
  /** What the shared state says of the document's delete (GoneRecord `h`): a record made from the version deleted is an edit that delete could not see. */
  deletion: SharedVersions['deletion'];
  /** Whether another writer's record of the document has its ids alone, its first body still to come (BodyFacts.bodyComing). */
  bodyComing: SharedVersions['bodyComing'];
  /** The service's time as the shared state these answers come from was read (undefined: not read this run). */
  stateReadAt: SharedVersions['stateReadAt'];
  /** Whether another writer appended to the shared state since this run read it (one listing; SharedVersions.appendedSinceRead). */
  appendedSinceRead: SharedVersions['appendedSinceRead'];
  /** The file now, or undefined when it does not exist. */
  fileText(path: string): Promise<TextFile | undefined>;
  openIntents(): readonly OpenIntent[];
  /** This machine's creates of the file's document that may have made it unrecorded (act/intent.ts). */
  createAttempts(path: string): number;
  /** The service's clock, as its last answer's Date header told it. */
  serverNow(): Date;
};

/**
 * The facts a planned action needed and the decision they gave: `detail`, tagged with the action that carries it
 * out, and `kind` and `held`, the words reports use for it, read off the detail (assessed()). `K`: the tags it
 * may have (a handler's, in the executor).
 */
export type Assessment<K extends ActionKind = ActionKind> = {
  readonly action: Action;
  readonly path: string;
  readonly kind: DecisionKind;
  readonly held?: Held;
  readonly note?: string;
  readonly detail: Detail<K>;
};

/** An assessment of `action`: the detail decided, and the words it comes to (read off it: detail.ts). */
const assessed = (action: Action, path: string, detail: Detail): Assessment => ({ action, path, ...asDecided(detail), detail });

/**
 * Reads what one planned action needs (the document's blocks, the file, the record) and decides, in the
 * pure functions of `decide/`. Both the run and every preview come through here, so they cannot differ.
 */
export async function assess(io: AssessIO, action: Action): Promise<Assessment> {
  const path = pathOf(action);
  const hold = (why: Held): Assessment => assessed(action, path, { tag: 'held', held: why });
  switch (action.kind) {
    case 'create':
    case 'recreate': {
      const before = await io.fileText(path);
      if (!before) return hold(held('VANISHED'));
      const title = action.kind === 'create' ? action.title : action.record.remoteTitle;
      const first = firstPush(io, action, path, before, title, action.kind === 'recreate' ? action.record.docKey : undefined);
      const shortened = action.kind === 'create' && action.shortened;
      return shortened ? { ...first, note: `its title is longer than the ${MAX_TITLE_CHARS} characters the service takes, so the document is titled "${title}"` } : first;
    }
    case 'forget': {
      // Gone on both sides because an interrupted run of this machine removed one of them: that removal, said as it was.
      const finishes = interruptedRemoval(io.openIntents(), path, action.record.docKey);
      return assessed(action, path, { tag: 'forget', record: action.record, ...(finishes ? { finishes } : {}) });
    }
    case 'trash-leftover':
      return assessed(action, path, { tag: 'trash-leftover' });
    case 'new-local-folder':
      return assessed(action, path, { tag: 'new-local-folder', folder: action.folder });
    case 'move-local':
      return assessed(action, path, { tag: 'move-local', move: action });
    case 'held':
      return hold(action.held);
    case 'new-local':
      return incoming(io, action, path);
    case 'relink': {
      const before = await io.fileText(path);
      if (!before) return hold(held('VANISHED'));
      return assessed(action, path, { tag: 'relink', record: sharedRecordOf(io, action.record, before.text), before });
    }
    case 'adopt': {
      const remote = await io.readBlocks(action.remote.docKey);
      const before = await io.fileText(path);
      if (!before) return hold(held('VANISHED'));
      const decision = decideAdopt({ mode: io.mode, force: io.force, path, fileText: before.text, remote, urlOf: io.urlOf, interruptedPull: interruptedPull(io.openIntents(), path, action.remote.docKey, before.text) });
      if (decision.kind === 'replace' && madeMomentsAgo(io, action.remote, remote) && io.createAttempts(path) === 0) return hold(held('JUST_CREATED'));
      return assessed(action, path, { tag: 'adopt', listed: action.remote, before, remote, decision, ...(action.known ? { known: action.known } : {}) });
    }
    case 'push':
    case 'pull':
    case 'check':
    case 'merge': {
      const before = await io.fileText(path);
      if (!before) return hold(held('VANISHED'));
      const recorded = await recordFor(io, action.record, before.text);
      const read = await readListedOrSay(io, action.record, path);
      if (!recorded) return adoptKnown(io, action, path, before, read);
      const { record, landed, remote, body } = await readAgainIfHidden(
        await bodyOnRead(io, action, recorded, before, read, undefined),
        (first) => judgesUnexplainedTime(first.body),
        async (known) => bodyOnRead(io, action, recorded, before, await readListedOrSay(io, action.record, path), known),
      );
      // An interrupted run's write that landed, its agreement taken from its intent: this run records it, and says so.
      const finished = landed.localHash !== recorded.localHash;
      return assessed(action, path, { tag: action.kind, record, before, remote, body, listed: io.listed(action.record.docKey), ...(finished ? { finished } : {}) });
    }
    case 'delete-remote':
    case 'restore': {
      const recorded = (await recordFor(io, action.record)) ?? sharedRecordOf(io, action.record, '');
      const read = await readOrGone(io, recorded.docKey);
      // The change the plan saw may be this machine's own push, killed before it was recorded: no edit to keep.
      const recordOf = (blocks: readonly Block[] | 'gone'): DocumentRecord => (blocks === 'gone' ? recorded : withReadBack(withLandedPush(recorded, io.openIntents(), blocks), blocks));
      if (action.kind === 'restore' && recordOf(read) === recorded && read !== 'gone') {
        const seen = io.listed(recorded.docKey);
        const version = await restoredVersion(recorded, read, io.webEdits, await publishedSince(io, recorded, read, seen));
        // Restored for a change reads do not show (its time moved, every block the same): a hidden edit the file
        // lacks, kept as decideDelete keeps it, or the next push overwrote it (soak seed 719).
        const hidden = seen !== undefined && blocksHash(read) === recorded.remoteBlocksHash && laterThan(seen.modifiedTime, recorded.remoteModifiedTime);
        const unexplained = hidden && !relocationExplains(io, recorded, seen) && !explainedBy(version, seen);
        const marks = { ...version.marks, hiddenEdit: recorded.hiddenEdit ?? (unexplained ? seen.modifiedTime : null) };
        return assessed(action, path, { tag: 'restore', record: recorded, remote: read, text: version.text, marks, listed: io.listed(action.record.docKey), ...placeOf(action) });
      }
      const onRead = async (remote: readonly Block[] | 'gone', known: Seen | undefined) => {
        const record = recordOf(remote);
        const decideOn = (seen: Seen | undefined): DeleteDecision =>
          decideDelete({ mode: io.mode, force: io.force, webEdits: io.webEdits, record, remote, ...(seen ? { listedTime: seen.modifiedTime, relocated: relocationExplains(io, record, seen) } : {}) });
        return { record, remote, ...(await decidedOnTime(io, record, known, remote !== 'gone', (d) => d.kind === 'delete-remote', decideOn)) };
      };
      // A restore that keeps a hidden edit it first saw (readAgainIfHidden).
      const { record, remote, decided, seen: listed } = await readAgainIfHidden(
        await onRead(read, undefined),
        ({ record: { hiddenEdit }, decided }) => decided.kind === 'restore' && decided.marks.hiddenEdit !== null && hiddenEdit === null,
        async (known) => onRead(await readOrGone(io, recorded.docKey), known),
      );
      // A restored file takes another writer's Markdown where reads cannot show it; asked only for a restore
      // (a delete that would go reads it once, unlessRecordedElsewhere).
      const restored = async (blocks: readonly Block[]) => restoredVersion(record, blocks, io.webEdits, await publishedSince(io, record, blocks, io.listed(record.docKey)));
      const version = decided.kind === 'restore' && remote !== 'gone' ? await restored(remote) : undefined;
      const explained = version !== undefined && explainedBy(version, listed);
      const decision =
        decided.kind === 'restore' && version
          ? { ...decided, text: version.text, marks: { ...decided.marks, ...version.marks, ...(explained ? { hiddenEdit: record.hiddenEdit } : {}) } }
          : decided.kind === 'delete-remote' && remote !== 'gone'
            ? await unlessRecordedElsewhere(io, record, remote, decided)
            : decided;
      return assessed(action, path, { tag: 'delete-remote', record, remote, decision, listed: io.listed(action.record.docKey), ...placeOf(action) });
    }
    case 'trash-local': {
      const before = await io.fileText(path);
      const record = (await recordFor(io, action.record, before?.text)) ?? sharedRecordOf(io, action.record, '');
      const asRecorded = before !== undefined && hashText(before.text) === record.localHash;
      const unpublished = asRecorded && !action.record.shared ? await lastPublishedOf(io, record) : undefined;
      // The state is read for it only where the file would go to the trash, and only a record that says what it was made from can ask.
      const deletion = asRecorded && record.builtOn !== null ? await io.deletion(record.docKey, path) : undefined;
      // No `gone` yet of a version written lately: its deleter's may be on its way (decideTrash). Its two minutes count
      // to this run's read of the state, as recordMayCome's: a `gone` that came after it is not in what this run read.
      const goneMayCome = deletion !== undefined && !deletion.said && recordMayCome(io, record.remoteModifiedTime);
      const deleted = deletion?.version;
      const decision = decideTrash({ mode: io.mode, localHash: record.localHash, builtOn: record.builtOn, fileText: before?.text, goneMayCome, ...(unpublished ? { unpublished } : {}), ...(deleted ? { deleted } : {}) });
      if (decision.kind === 'recreate' && before) return firstPush(io, action, path, before, record.remoteTitle, record.docKey);
      return assessed(action, path, { tag: 'trash-local', record, before, decision });
    }
    case 'move': {
      const before = await io.fileText(action.to);
      if (!before) return hold(held('VANISHED'));
      const recorded = (await recordFor(io, action.record, before.text)) ?? sharedRecordOf(io, action.record, '');
      const onRead = async (remote: readonly Block[] | 'gone', known: Seen | undefined) => {
        const record = remote === 'gone' ? recorded : withReadBack(withLandedPush(recorded, io.openIntents(), remote), remote);
        const decideOn = async (seen: Seen | undefined): Promise<MoveDecision> => {
          // The new document is made from the merge: another writer's Markdown (a link's address, code) must be in it.
          const published = remote === 'gone' ? undefined : newsOf(recorded, record, await publishedSince(io, record, remote, seen), remote);
          const unpublished = await unpublishedOf(io, record, before.text, published);
          const fork = remote === 'gone' ? undefined : await forkSince(io, record, remote, seen, published);
          return decideMove({
            body: { ...bodyFacts(io, record, action.to, before, [], seen), ...(published ? { published } : {}), ...(unpublished ? { unpublished } : {}), ...(fork ? { fork } : {}) },
            record,
            samePlace: action.samePlace,
            remote,
          });
        };
        // A move makes the document anew: an edit reads cannot show must be seen first (and, to delete it, seen again). A
        // move whose document stays where it is (one this machine cannot delete, or already in place) overwrites it with
        // the file's edit all the same (model seed 8020: a keyless team's move overwrote a code line saved after the listing).
        const destroys = (d: MoveDecision): boolean => d.kind === 'move' || (d.kind === 'rename' && overwrites(d.body));
        return { record, remote, ...(await decidedOnTime(io, record, known, remote !== 'gone', destroys, decideOn)) };
      };
      // A move held MOVE_LOSSY on a hidden edit it first saw (readAgainIfHidden).
      const { record, remote, decided: decision } = await readAgainIfHidden(
        await onRead(await readOrGone(io, recorded.docKey), undefined),
        ({ decided }) => decided.kind !== 'recreate' && judgesUnexplainedTime(decided.body),
        async (known) => onRead(await readOrGone(io, recorded.docKey), known),
      );
      // The file moved by an interrupted run of this machine, after its document: that move, said as one (not the user's rename).
      const followed = interruptedFollow(io.openIntents(), action.record.path, action.to, action.record.docKey);
      const moved = assessed(action, path, { tag: 'move', record, before, remote, decision, to: action.to, title: action.title, listed: io.listed(action.record.docKey), ...(followed ? { followed } : {}) });
      return decision.kind === 'rename' && decision.note ? { ...moved, note: decision.note } : moved;
    }
  }
}

/**
 * The decision says a hidden edit first, or has the file's edit wait for the record that would explain the time
 * (JUST_EDITED): a save the read came too early to show may be all that time is, and a visible edit waited for was
 * held a minute or two for nothing.
 */
const judgesUnexplainedTime = (body: BodyDecision): boolean => body.hiddenEditSeen || body.held?.code === 'JUST_EDITED';

/** A decision made on one read of a document's blocks, and the time it was made on. */
type OnRead = {
  /** The document's time the decision was made on (listed, or asked). */
  readonly seen: Seen | undefined;
  /** That time was asked after the read (by a run that did not list it, or looking again): a save between them has its time, not its blocks. */
  readonly timeAfterRead: boolean;
};

/**
 * A decision made on a read, made again on a second read when it first sees a hidden edit on a time asked after
 * the first (`again`, given that time). Such a time (no listing: a push, the daemon's local cycle; or the look
 * again before an overwrite, a delete or a move) may be of a save the read came too early to show: taken with
 * those blocks, a colleague's visible edit there reads as a time that moved over blocks that did not, a hidden
 * edit, and every later edit of a prose page was held with it (soak seed 711). Read after that time, the blocks
 * show any visible save it stands for, and only a time they still do not account for is a hidden edit. One read
 * more, only where a hidden edit would otherwise be said, or a file's edit wait for it (judgesUnexplainedTime).
 */
async function readAgainIfHidden<R extends OnRead>(first: R, seesHidden: (decided: R) => boolean, again: (known: Seen) => Promise<R>): Promise<R> {
  return first.timeAfterRead && first.seen !== undefined && seesHidden(first) ? again(first.seen) : first;
}

/** A synced document's body decided on one read of its blocks, and what that decision stood on. */
type BodyOnRead = OnRead & {
  /** The record as that read leaves it (an interrupted run's write that landed, a write's read-back). */
  readonly record: DocumentRecord;
  /** The record with an interrupted run's write that landed, before its read-back. */
  readonly landed: DocumentRecord;
  readonly remote: readonly Block[];
  readonly body: BodyDecision;
};

/**
 * The body decision of a push, pull, check or merge on the blocks `remote` read. `known`: the document's time as
 * asked before that read, when the run did not list it (else the listing's, or, for a file with an edit to
 * send, the document's as asked now).
 */
async function bodyOnRead(
  io: AssessIO,
  action: Extract<Action, { kind: 'push' | 'pull' | 'check' | 'merge' }>,
  recorded: DocumentRecord,
  before: TextFile,
  remote: readonly Block[],
  known: Seen | undefined,
): Promise<BodyOnRead> {
  const path = pathOf(action);
  const intents = io.openIntents();
  const landed = withLandedPush(recorded, intents, remote);
  const record = withReadBack(landed, remote);
  // Decided on the file as the user left it: an interrupted run's own write to it is no edit of theirs. Not by a
  // push-only run, which takes in no remote edit: decided on the text before the pull, it held the file
  // REMOTE_EDITED (exit 1) though the file already has that edit.
  const file = io.mode === 'push' ? before : { ...before, text: fileBeforeOwnWrite(record, intents, before.text) };
  const decide = async (seen: Seen | undefined, mayCome?: true): Promise<BodyDecision> => {
    const published = newsOf(recorded, record, await publishedSince(io, record, remote, seen), remote);
    const unpublished = await unpublishedOf(io, record, file.text, published);
    const fork = await forkSince(io, record, remote, seen, published);
    // Against the folder the plan knew: the check after a move in the web editor follows the move's own record of the new one.
    // A record the plan rebound to the document another writer made in place of its own reads that document first now.
    const followed = action.record.follows !== undefined ? { followed: true } : {};
    const coming = (await bodyComingTo(io, record, remote)) ? { bodyComing: true } : {};
    const facts = { ...bodyFacts(io, record, path, file, remote, seen, action.record.parentTreeNodeId), ...(mayCome ? { recordMayCome: mayCome } : {}) };
    return decideBody({ ...facts, ...(published ? { published } : {}), ...(unpublished ? { unpublished } : {}), ...(fork ? { fork } : {}), ...followed, ...coming });
  };
  const { decided, ...on } = await decidedOnTime(io, record, known, io.mode !== 'pull' && hashText(file.text) !== record.localHash, overwrites, decide);
  return { record, landed, remote, body: await unlessRecordCame(io, decided, () => decide(on.seen, true)), ...on };
}

/**
 * A hidden edit about to be said first (a time no record explains, its two minutes over as this run read the
 * shared state) is said only if no writer appended to that state since: the writer whose write moved the time
 * publishes its record when its run ends, and a run that waits on a slow service (a throttled read-back, many
 * files) can publish it minutes after its write, after this run's read (convergence soak 752: A read the state as
 * the service's clock passed the two minutes of B's write inside code, B's record came a moment later, and A said
 * HIDDEN_EDIT of B's own write, which A's next run took in by that record). Where the state changed, the decision
 * waits for the next run, which reads it (`waiting`: nothing decided, nothing recorded); one listing of the
 * state's folder tells, asked only here. A colleague's edit inside code is found by that next run.
 */
async function unlessRecordCame(io: AssessIO, decided: BodyDecision, waitingFor: () => Promise<BodyDecision>): Promise<BodyDecision> {
  // A file with an edit to send waits with it (JUST_EDITED, decide/body.ts mayWaitForRecord): decided now, its append
  // went out over that writer's write and the hidden edit was said all the same (convergence soak 762).
  if (!decided.hiddenEditSeen || decided.waiting === true || !(await io.appendedSinceRead())) return decided;
  const waited = await waitingFor();
  return waited.waiting === true ? waited : decided;
}

/**
 * `decide` on the document's time: the listing's (or `known`, asked before the read), else, where `ask`, the time
 * asked now, after the read (one call); looked at again before a decision that `destroys` (lookedAgain).
 */
async function decidedOnTime<T>(
  io: AssessIO,
  record: DocumentRecord,
  known: Seen | undefined,
  ask: boolean,
  destroys: (decided: T) => boolean,
  decide: (seen: Seen | undefined) => T | Promise<T>,
): Promise<OnRead & { readonly decided: T }> {
  const listed = known ?? io.listed(record.docKey);
  const asked = listed ?? (ask ? await io.node(record) : undefined);
  const { decided, seen } = await lookedAgain(io, record, listed, { decided: await decide(asked), seen: asked }, destroys, decide);
  return { decided, seen, timeAfterRead: seen !== undefined && seen !== listed };
}

/**
 * A decision that destroys what the document holds (an overwrite, a delete, a move's delete of the old document),
 * made on the listing's time, taken at the run's start: the time is asked again after the read, and the decision
 * made again on it if it moved. A save inside code between the two reads the same, and only its time shows it
 * (model seeds 6018, 6030: a colleague's code line saved after the listing, deleted with the old document of a
 * move, and overwritten by a push). One call, only for such a decision; the window left runs from that look to
 * the write. `seen`: what it was decided on (a time known without a listing was asked after the read already).
 */
async function lookedAgain<T>(
  io: AssessIO,
  record: DocumentRecord,
  listed: Seen | undefined,
  first: { readonly decided: T; readonly seen: Seen | undefined },
  destroys: (decided: T) => boolean,
  decide: (seen: Seen) => T | Promise<T>,
): Promise<{ readonly decided: T; readonly seen: Seen | undefined }> {
  // While the listed minute is still the service's, a save since bears that same minute: the answer could not tell it.
  if (listed === undefined || !destroys(first.decided) || !minutePassed(listed.modifiedTime, io.serverNow())) return first;
  const now = await io.node(record);
  if (now === undefined || !laterThan(now.modifiedTime, listed.modifiedTime)) return first;
  // Where it is comes from the listing (a node read keeps the record's folder); its title and time are as they are now.
  const seen = { ...listed, modifiedTime: now.modifiedTime, title: now.title };
  return { decided: await decide(seen), seen };
}

/** A body decision that writes the whole document (an append keeps what it holds). */
const overwrites = (decided: BodyDecision): boolean => decided.send !== undefined && decided.send.append === undefined;

/**
 * A time another writer's restored version accounts for (its write, in that minute) is no hidden edit (soak seed 500:
 * a file deleted here, whose document another machine had written meanwhile, came back said HIDDEN_EDIT, its next
 * move held MOVE_LOSSY); unless that version says itself that the document holds an edit reads cannot show (its
 * writer said HIDDEN_EDIT: soak seed 719).
 */
const explainedBy = (version: { readonly writtenAt?: string; readonly marks: Pick<ReadingMarks, 'hiddenBase'> }, seen: Seen | undefined): boolean =>
  version.writtenAt !== undefined && version.marks.hiddenBase !== true && seen !== undefined && !laterThan(seen.modifiedTime, version.writtenAt);

const placeOf = (action: Extract<Action, { kind: 'delete-remote' | 'restore' }>): Place => (action.at !== undefined ? { at: action.at } : {});

/** A file that gets a new document: the body is decided before the document is made, so a push that would be held creates nothing. */
function firstPush(io: AssessIO, action: Action, path: string, before: TextFile, title: string, replaces: DocumentRecord['docKey'] | undefined): Assessment {
  const body = decideFirstPush({ mode: io.mode, force: io.force, path, fileText: before.text, urlOf: io.urlOf });
  return assessed(action, path, replaces ? { tag: 'recreate', before, body, title, replaces } : { tag: 'create', before, body, title });
}

/**
 * What another writer published of a document, unless it is no news after this machine's own write (`record`, not
 * `recorded`: a run killed between the write and its record, found again by its intent):
 * - its plain reading (inexact) of the very blocks that write left there. That writer read our write before our
 *   record could be published and knows less of it than we do (state chaos seed 24: taken for news, it held every
 *   later edit of the file FLATTEN, and its move MOVE_LOSSY, for good);
 * - the version that write replaced: the recorded text, agreed no later than the write's intent (within the
 *   clocks' slack, where the landed record's time cannot tell it older: interrupted.ts withLandedPush). The kill
 *   kept our record from the shared state, so it is still there; a write inside code leaves the blocks it read as,
 *   so it stood for the document, and our write's minute for an edit reads cannot show (soak seed 502: HIDDEN_EDIT
 *   said by both machines, and the code line the write replaced put back into the file).
 */
function newsOf(recorded: DocumentRecord, record: DocumentRecord, published: PublishedVersion | undefined, remote: readonly Block[]): PublishedVersion | undefined {
  if (!published || respelling(published, record)) return undefined;
  if (record === recorded) return published;
  if (!published.exact && standFor(remote, published.remoteBlocksHash, published.text)) return undefined;
  const replaced = record.baseMarkdown !== recorded.baseMarkdown && published.text === recorded.baseMarkdown && published.agreedAt <= record.agreedAt + AGREED_SLACK_MS;
  return replaced ? undefined : published;
}

/**
 * Another writer's version made from the very version this record's was (`builtOn`), without knowing this one, of
 * the very blocks, with its front matter, whose body says what this record's does in another layout: that writer's
 * plain reading of our write, made before our record came, as its own Markdown writer lays the blocks out (a list
 * item's second line indented, where ours was lazy). It says nothing we do not (an inexact one may say the document
 * holds more: it stays news); taken for a later version (or a branch), its layout clashed with our next edit at that
 * line, a conflict with nothing to settle (convergence soak 736). Only such a sibling: a version made from ours, or
 * from one unknown, is a later one, whose layout (a user's own, as they wrote it) is news however alike it reads (the
 * rule's first cut took any same-Markdown version of these blocks for a respelling, and a machine that followed a
 * forced move kept its own layout of the page, a blank line fewer than the mover's file and the document).
 */
const respelling = (published: PublishedVersion, record: DocumentRecord): boolean => {
  // Only of a write of ours: where our record is itself a plain reading, that version is the source it read (decide/body.ts sourceOfReading).
  if (!published.exact || record.readPlainly || !sibling(record, published)) return false;
  const theirs = splitText(published.text);
  const ours = splitText(record.baseMarkdown);
  return theirs.head === ours.head && sameMarkdown(theirs.body, ours.body);
};

type Seen = Pick<RemoteDoc, 'modifiedTime' | 'title' | 'parentTreeNodeId'>;

/**
 * What another kbsync writer published of the document since this record, for the merge to work from.
 * Another machine's write shows as a remote change, or (inside code, a link's address) as a later time only:
 * the shared state is read for its Markdown then (a state read with this run's listing is asked always).
 * A version this machine took in from a plain reading may be one another writer published exactly.
 */
async function publishedSince(io: AssessIO, record: DocumentRecord, remote: readonly Block[], seen: Seen | undefined): Promise<PublishedVersion | undefined> {
  const moved = movedSince(record, remote, seen);
  // A time unknown here cannot show an edit where reads cannot see; another writer's record may (seed 50013).
  const published = await io.published(record, moved || record.lossyBase || record.remoteModifiedTime === '', blocksHash(remote));
  // Not one that stands kbsync's placeholders where this machine may hold the source (plain-reading.ts).
  return published && placeholdsSource(published, record, remote) ? undefined : published;
}

/**
 * Whether a document that reads empty, where this record has a body, is one another writer made and has yet to
 * fill (BodyFacts.bodyComing). Asked only then: a followed move read before its writer's first body (soak seed 714).
 */
const bodyComingTo = (io: AssessIO, record: DocumentRecord, remote: readonly Block[]): Promise<boolean> =>
  remote.length === 0 && splitText(record.baseMarkdown).body.trim() !== '' ? io.bodyComing(record.docKey) : Promise.resolve(false);

/** The document changed since this record: its blocks, or only its time (a change inside code reads the same). */
const movedSince = (record: DocumentRecord, remote: readonly Block[], seen: Seen | undefined): boolean =>
  blocksHash(remote) !== record.remoteBlocksHash || laterThan(seen?.modifiedTime, record.remoteModifiedTime);

/**
 * Another branch of the version this record was made from (BodyFacts.fork), asked only of a document that changed
 * since (the state was read for it then): a write landed over a version another machine agreed on meanwhile. Or of
 * one that did not, where another writer published a version of the same blocks made from that very version: a
 * write differing only where reads cannot see, landed in the same moment as this record's own write (a record of a
 * plain reading of that write is no write: the test of model seed 6034 lost the bold it read plainly so). Of any
 * other, only a branch the state says a write overtook (SharedState.forks, one look in the state read): the
 * document may have held that write since before this record, as its writer's or as a plain reading of it
 * (model seed 7337: neither machine's document moved, and the address the write replaced stayed lost).
 */
const forkSince = (io: AssessIO, record: DocumentRecord, remote: readonly Block[], seen: Seen | undefined, published: PublishedVersion | undefined): Promise<BodyFacts['fork'] | undefined> =>
  movedSince(record, remote, seen) || sibling(record, published) ? io.fork(record) : io.fork(record, 'overtaken');

/**
 * Another writer's version of the blocks this record agreed on, other text, made from the very version this one was
 * (both not knowing the other). Not where this record is that very version (tookExactly, taken in exactly): made from it, the
 * other is a later version of it (its line endings or front matter, which the blocks do not show).
 */
const sibling = (record: DocumentRecord, published: PublishedVersion | undefined): boolean =>
  published !== undefined && !record.inexact && record.builtOn !== null && !tookExactly(record) && published.builtOn === record.builtOn && published.remoteBlocksHash === record.remoteBlocksHash && published.text !== record.baseMarkdown;

/**
 * What the others know of a file whose recorded text never reached the shared state (BodyFacts.unpublished): its
 * append failed, or the run was killed before it, and no other writer published that text (pulled from one, it
 * is known). Asked only where it can change the merge: another writer's later version whose front matter or line
 * endings are not the file's. One read of the sources, at most, for the text this machine last published.
 */
async function unpublishedOf(io: AssessIO, record: DocumentRecord, fileText: string, published: PublishedVersion | undefined): Promise<BodyFacts['unpublished']> {
  if (!published || published.text === record.baseMarkdown || !newerThanRecord(published, record)) return undefined;
  if (splitText(published.text).head === splitText(fileText).head && lineEndingsOf(published.text) === lineEndingsOf(fileText)) return undefined;
  return lastPublishedOf(io, record);
}

/** What this machine last published of a file whose recorded text the shared state never had (BodyFacts.unpublished); undefined: it had it. */
async function lastPublishedOf(io: AssessIO, record: DocumentRecord): Promise<BodyFacts['unpublished']> {
  if (record.publishedSource === record.localHash || (await io.source(record.localHash)) !== undefined) return undefined;
  return { lastPublished: record.publishedSource === null ? undefined : await io.source(record.publishedSource) };
}

function bodyFacts(io: AssessIO, record: DocumentRecord, path: string, before: TextFile, remote: readonly Block[], seen?: Seen, plannedParent = record.parentTreeNodeId): BodyFacts {
  const listed = seen ?? io.listed(record.docKey);
  // --force for the whole run, or `kbsync resolve --mine` for this file alone.
  const force = io.force || io.released?.get(record.path) === 'mine';
  const relocation = listed === undefined ? undefined : relocationOf(io, record, listed, plannedParent);
  const listedLately = listed !== undefined && underAMinuteOld(listed.modifiedTime, io.serverNow());
  const relocated = { relocated: relocation !== undefined, ...(relocation === 'moved' ? { moved: true } : {}) };
  const listing = listed ? { listedTime: listed.modifiedTime, ...relocated, listedLately, recordMayCome: recordMayCome(io, listed.modifiedTime) } : {};
  return { mode: io.mode, force, webEdits: io.webEdits, path, record, fileText: before.text, remote, urlOf: io.urlOf, ...listing };
}

/**
 * Whether a writer's record of a write stamped `modifiedTime` may have come since this run read the shared state
 * (BodyFacts.recordMayCome): asked once the state was read for the document (publishedSince), if this run read it.
 */
const recordMayCome = (io: AssessIO, modifiedTime: string): boolean => underAMinuteOld(modifiedTime, io.stateReadAt() ?? io.serverNow());

/**
 * Whether a rename or move explains the time `seen` bears. One the listing showed was made no later than the
 * listed minute: a later time, found by the look again after the read (lookedAgain), is explained only by a rename
 * since, which that look shows (a node's answer has its title, not its folder). Else it is an edit reads may not
 * show (model seed 5993: another machine's write of a link's address, in the minute after the listing of a
 * document a colleague had moved, was taken for that move, and this machine's push, on its read from before that
 * write, overwrote it).
 */
const relocationExplains = (io: AssessIO, record: DocumentRecord, seen: Seen, plannedParent = record.parentTreeNodeId): boolean => relocationOf(io, record, seen, plannedParent) !== undefined;

/** The rename or move that explains the time `seen` bears (relocationExplains): a move to another folder, or a rename alone. */
function relocationOf(io: AssessIO, record: DocumentRecord, seen: Seen, plannedParent = record.parentTreeNodeId): Relocation | undefined {
  const listing = io.listed(record.docKey);
  if (listing !== undefined && laterThan(seen.modifiedTime, listing.modifiedTime)) return seen.title !== listing.title ? 'renamed' : undefined;
  return relocatedSince({ ...record, parentTreeNodeId: plannedParent }, seen);
}

/** A move to another folder (the file's path changes with it, whatever the title does), or a rename alone (the path stays). */
type Relocation = 'moved' | 'renamed';

/**
 * A rename or move in the web editor moves the document's time too: that is no hidden edit. Against the title
 * last listed, not the one kbsync gave: a rename seen once excuses no later time (model seed 11001: every
 * later edit inside code of a renamed document was taken for the rename, and overwritten). A time the look again
 * found is against the listing's title. Told apart from a move (BodyFacts.moved): a rename keeps the file's path.
 */
const relocatedSince = (record: DocumentRecord, listed: Pick<RemoteDoc, 'title' | 'parentTreeNodeId'>): Relocation | undefined => {
  const seen = record.listedTitle ?? record.remoteTitle;
  if (seen === '') return undefined;
  if (listed.parentTreeNodeId !== record.parentTreeNodeId) return 'moved';
  return listed.title !== seen ? 'renamed' : undefined;
};

/**
 * The full record of a planned record: the ledger's row, or for a file known only from the shared state,
 * one built from its source (the file itself when it is unchanged). Undefined when that source is missing.
 */
async function recordFor(io: AssessIO, entry: RecordEntry, fileText?: string): Promise<DocumentRecord | undefined> {
  if (!entry.shared) {
    const row = io.record(entry.path);
    if (!row) throw new Error(`the ledger has no row for "${entry.path}" any more`);
    // The plan follows a document another writer replaced; a preview reads the row as the run rebinds it.
    const record = entry.follows !== undefined && row.docKey === entry.follows ? { ...row, ...followPatch(entry, io.listed(entry.docKey)?.url ?? '') } : row;
    // `kbsync resolve --theirs`: what was held (a hidden edit seen) is dropped, and the document read as if unseen.
    return io.released?.get(entry.path) === 'theirs' ? { ...record, hiddenEdit: null, heldCode: null, recheck: true } : record;
  }
  const base = fileText !== undefined && hashText(fileText) === entry.localHash ? fileText : await io.source(entry.localHash);
  return base === undefined ? undefined : sharedRecordOf(io, entry, base);
}

const sharedRecordOf = (io: AssessIO, entry: RecordEntry, base: string): DocumentRecord =>
  sharedRecord(entry, base, { workspaceId: io.workspaceId, url: io.listed(entry.docKey)?.url ?? '' });

/**
 * A document this folder has no record of, empty, and perhaps made less than a minute ago by the service's clock
 * (its minute stamp against the Date header's time): its maker, another writer, may be sending its first body
 * now. With no conditional write, ours could land just after theirs, and their next run would take our text for
 * an edit of its own and pull it over its file (its words then only in its backups). Held (JUST_CREATED) for a
 * later run, which merges with what it then holds, or fills it if it is still empty. An empty document older
 * than that (a first sync into a workspace, a CI job without a ledger) is filled as before: its listed time
 * moves only when it is written, so an empty document's time is when it was made (or emptied).
 */
const madeMomentsAgo = (io: AssessIO, listed: RemoteDoc, remote: readonly Block[]): boolean => remote.length === 0 && underAMinuteOld(listed.modifiedTime, io.serverNow());

/**
 * A delete about to go, over another writer's version of the document this machine has not taken in: an edit beats
 * a delete, and one of front matter or line endings reaches no document, so the document's time, by which the delete
 * was judged, does not show it; the team's state does (convergence soak 745: a daemon's local cycle, which lists
 * nothing, deleted a page whose front matter another machine had just given it, and that machine then took the
 * deletion: the front matter was in no file). The state is read for it, once, only where a delete would go. The file
 * comes back with that version (two-way), or the delete is held (a push).
 */
async function unlessRecordedElsewhere(io: AssessIO, record: DocumentRecord, remote: readonly Block[], decided: DeleteDecision): Promise<DeleteDecision> {
  const published = await io.published(record, true, blocksHash(remote));
  if (!published || published.text === record.baseMarkdown || !standsOverRecord(published, record, remote)) return decided;
  if (io.mode === 'push') return { kind: 'held', held: held('DELETE_EDITED') };
  const version = restoredVersion(record, remote, io.webEdits, published);
  return { kind: 'restore', text: version.text, marks: { ...version.marks, hiddenEdit: record.hiddenEdit } };
}

/** A shared-state file whose source is missing: with no base, it is paired as a fresh link would be (ids kept). */
function adoptKnown(io: AssessIO, action: Action, path: string, before: TextFile, remote: readonly Block[]): Assessment {
  const known = 'record' in action ? action.record : undefined;
  const decision = decideAdopt({ mode: io.mode, force: io.force, path, fileText: before.text, remote, urlOf: io.urlOf, interruptedPull: false });
  return assessed(action, path, { tag: 'adopt', listed: known && io.listed(known.docKey), before, remote, decision, ...(known ? { known } : {}) });
}

/** Where a new local file's document is listed, and the copy an interrupted pull left of it elsewhere. */
const listedAs = (action: Extract<Action, { kind: 'new-local' }>): { remote: RemoteDoc; leftover: string | undefined } => ({ remote: action.remote, leftover: action.leftover });

/** A new local file: the shared state's source when it has one (byte for byte), else the service's reading. */
async function incoming(io: AssessIO, action: Extract<Action, { kind: 'new-local' }>, path: string): Promise<Assessment> {
  const known = action.known;
  const source = known ? await io.source(known.localHash) : undefined;
  // The listing proves the document unchanged since its source was synced: no read at all.
  const unchanged = known !== undefined && source !== undefined && known.remoteModifiedTime !== '' && !known.recheck && action.remote.modifiedTime === known.remoteModifiedTime;
  const read = unchanged ? undefined : await io.readBlocks(action.remote.docKey);
  // Written by a run killed before its record (state chaos seed 14): that run's text, exactly.
  const landed = read && (await io.announced(action.remote.docKey, blocksHash(read), known ? { blocksHash: known.remoteBlocksHash, ...(known.agreedAt !== undefined ? { agreedAt: known.agreedAt } : {}) } : {}));
  if (read && landed) {
    const late = laterThan(action.remote.modifiedTime, landed.modifiedTime);
    const hiddenEdit = late ? action.remote.modifiedTime : null;
    const taken = { tag: 'new-local', ...listedAs(action), text: landed.text, blocks: read, ...(known ? { known } : {}), marks: { lossy: false, hiddenEdit } } as const;
    // A first body (announced with the document's ids, and written when its turn came: minutes later, at times) whose
    // time is past the announcement's minute, lately: its writer's record, which says the minute it bears, is most
    // likely on its way. Taken for a hidden edit now, it was published as one, and every machine held each later
    // edit of a new prose page nobody had touched (soak seed 705). So the next run takes it in, by that record if it
    // has come, and as now if not (a writer killed after its write). Its two minutes count to this run's read of the
    // state, not to the read of the page: a record that came between them is not in what this run read.
    const firstBody = (known?.remoteBlocksHash ?? '') === '';
    if (late && firstBody && recordMayCome(io, action.remote.modifiedTime)) return assessed(action, path, { ...taken, waiting: true });
    return assessed(action, path, taken);
  }
  if (!known || source === undefined) {
    const blocks = read ?? (await io.readBlocks(action.remote.docKey));
    // Read as plain text: whatever formatting the document has is not in the file (an empty one has none).
    return assessed(action, path, { tag: 'new-local', ...listedAs(action), text: blocksToMarkdown(blocks), blocks, marks: { lossy: blocks.length > 0, hiddenEdit: null, headCarried: true } });
  }
  const remote = read;
  const { text, marks } = decideIncoming({
    source,
    syncedBlocksHash: known.remoteBlocksHash,
    syncedTime: known.remoteModifiedTime,
    lossy: known.lossy === true,
    formattingOnly: known.formattingOnly === true,
    hidden: known.hidden !== false,
    remote,
    listedTime: action.remote.modifiedTime,
    webEdits: io.webEdits,
    headCarried: known.headCarried === true,
  });
  const blocks = remote ?? predictedBlocks(splitText(source).body);
  return assessed(action, path, { tag: 'new-local', ...listedAs(action), text, blocks, ...(remote ? {} : { blocksHash: known.remoteBlocksHash }), known, marks });
}

/**
 * The document's blocks. One this run did not list (a push lists nothing it need not) and finds gone may be
 * deleted, or replaced by another machine's move: the error says which the next run finds out (list-next.ts).
 */
async function readListedOrSay(io: AssessIO, record: Pick<RecordEntry, 'docKey'>, path: string): Promise<readonly Block[]> {
  try {
    return await io.readBlocks(record.docKey);
  } catch (error) {
    if (!isNotFound(error) || io.listed(record.docKey) !== undefined) throw error;
    throw new KbsyncError('API_NOT_FOUND', `The document of ${path} is gone from the knowledge base: deleted there, or replaced by another machine's move of the file; this run listed nothing that tells which.`, {
      hint: 'Run the sync again: the next one lists the knowledge base, then follows the new document or creates it again.',
      cause: error,
    });
  }
}

async function readOrGone(io: AssessIO, docKey: DocumentRecord['docKey']): Promise<readonly Block[] | 'gone'> {
  try {
    return await io.readBlocks(docKey);
  } catch (error) {
    if (isNotFound(error)) return 'gone';
    throw error;
  }
}

/**
 * The document's time and title as the service gives them now (one call), for a run that did not list it;
 * undefined when it is gone. Its folder cannot be told from one node, so the record's stands.
 */
export async function nodeOf(client: Pick<KbClient, 'getNode'>, record: DocumentRecord): Promise<Seen | undefined> {
  try {
    const node = await client.getNode(record.treeNodeId);
    return { modifiedTime: node.modifiedTime, title: node.title, parentTreeNodeId: record.parentTreeNodeId };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
