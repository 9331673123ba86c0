import type { DocumentRecord } from '../../ledger/index.js';
import { hashText, type FileFingerprint } from '../../local/index.js';
import { align, blocksHash } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import { latestMinuteAfter, minutePassed } from '../state/minutes.js';
import type { HeldState } from '../decide/held.js';
import { splitText } from '../content/document-text.js';
import type { RemoteDoc } from '../decide/types.js';
import { laterThan } from '../decide/body.js';
import { rememberGone } from '../state/pending-gone.js';
import { writtenMark } from '../state/publish.js';
import { keepPublishedOverReadBack } from '../state/publish.js';

export type RemoteTime = { readonly modifiedTime: string; readonly recheck: boolean };

/**
 * The remote's modifiedTime has minute precision, so a listing cannot show an edit made later in
 * the same minute as the one we recorded. Until the service's clock has left that minute, the
 * document is marked for one more read; after our own write the time is unknown until listed.
 */
export function remoteTimeOf(ctx: SyncContext, listed: RemoteDoc | undefined, record: Pick<DocumentRecord, 'remoteModifiedTime' | 'recheck'> | undefined, uncertain: boolean): RemoteTime {
  if (uncertain) return { modifiedTime: '', recheck: true };
  if (listed) return { modifiedTime: listed.modifiedTime, recheck: !minutePassed(listed.modifiedTime, ctx.serverNow()) };
  return { modifiedTime: record?.remoteModifiedTime ?? '', recheck: record?.recheck ?? true };
}

/**
 * Right after our own write: the latest minute the service can have stamped it with (its clock from its last
 * answer, plus the second that clock's Date header may lag). A listing that shows a later minute shows
 * someone else's edit, even one made where reads cannot see; an edit within that minute after our read-back
 * is the one window left. Marked for one more read until the minute is over.
 */
export function writtenTime(ctx: SyncContext): RemoteTime {
  return { modifiedTime: latestMinuteAfter(ctx.serverNow().getTime()), recheck: true };
}

type Agreement = Omit<
  DocumentRecord,
  | 'localHash'
  | 'statSize'
  | 'statMtimeMs'
  | 'statIno'
  | 'baseMarkdown'
  | 'imagesSent'
  | 'remoteBlocks'
  | 'remoteBlocksHash'
  | 'alignment'
  | 'remoteModifiedTime'
  | 'syncedAt'
  | 'recheck'
  | 'conflict'
  | 'conflictPath'
  | 'heldCode'
  | 'heldLocalHash'
  | 'heldRemoteTime'
  | 'publishedRecord'
  | 'publishedSource'
  | 'conflictBase'
  | 'publishedOver'
  | 'hiddenEdit'
  | 'lossyBase'
  | 'formattingOnly'
  | 'hiddenBase'
  | 'agreedAt'
  | 'listedTitle'
  | 'placedAt'
  | 'inexact'
  | 'inexactFormatting'
  | 'inexactHidden'
  | 'headCarried'
  | 'replacedHead'
  | 'namedHere'
  | 'readPlainly'
  | 'builtOn'
> & {
  /**
   * The title the listing shows now, when the agreement follows a listing; absent: the recorded one stands
   * (spread in with a record, the record's).
   */
  readonly listedTitle?: string | null;
  /** Carried over from a record spread in; a write that replaced the whole document ends both (null, false). */
  readonly hiddenEdit?: string | null;
  readonly lossyBase?: boolean;
  /** With `lossyBase`: all the base lacks is formatting of words a colleague wrote (merge.webEdits decides). */
  readonly formattingOnly?: boolean;
  /** With `lossyBase`: the base is another writer's version whose record said the document holds a hidden edit (its `hd`). */
  readonly hiddenBase?: boolean;
  /** Carried over from a record spread in: kept while the version stays the same, renewed when it changes. */
  readonly agreedAt?: number;
  /** The base's front matter was kept across a plain reading of a change no record explained (DocumentSummary.headCarried); absent: a record spread in keeps its own, else no. */
  readonly headCarried?: boolean;
  /** The file's path was chosen here from the document's title (DocumentSummary.namedHere); absent: the row keeps its own, else no. */
  readonly namedHere?: boolean;
  /** The base is this machine's layout of a change taken in from the plain reading (DocumentSummary.readPlainly); absent: no. */
  readonly readPlainly?: boolean;
  /** The front matter this machine's own change replaced (DocumentBody.replacedHead); absent: a record spread in keeps its own, else none. */
  readonly replacedHead?: string | null;
  /**
   * The version this one was made from, known exactly (DocumentBody.builtOn); absent: none known (a re-check of the
   * same version keeps its own). Named apart from the record's `builtOn` so a record spread in never carries it on.
   */
  readonly madeFrom?: string;
  /**
   * When this agreement follows our write of the document: the body it held before (a later revert of it is
   * a lost update). Named apart from the record's `publishedOver` so a record spread in never carries it on.
   */
  readonly wroteOver?: string;
  /** After an overwrite: the images it sent (the ledger's JSON text); absent: those recorded before stand. */
  readonly imagesSent?: string | null;
  /** With a new conflict: the text its clash was found against (kept while the conflict stays open). */
  readonly conflictBase?: string | null;
  /** What the document's blocks hash to, when `remoteBlocks` are a prediction (a state from another machine) rather than a read. */
  readonly predictedBlocksHash?: string;
  /** Nothing changed on either side: the agreement only reads back (or re-checks) the version recorded. */
  readonly readBack?: boolean;
} & {
  /** The file as it now is on disk. */
  readonly fileText: string;
  /**
   * What both sides agreed on: the file text, except when local edits are left unpushed (a pull-only run,
   * a push that was held back): then the file is recorded as differing from this base, so the next run
   * still sees those edits as local changes.
   */
  readonly baseText: string;
  readonly fingerprint: FileFingerprint;
  readonly remoteBlocks: readonly Block[];
  readonly remoteTime: RemoteTime;
  readonly conflictPath: string | null;
};

/** A fingerprint no file has: a row recorded with it never passes the stat fast path. */
export const UNMATCHABLE: FileFingerprint = { size: -1, mtimeMs: -1, ino: -1, dev: -1 };

/** A listed title worth keeping: one that is not the recorded title (renamed in the web editor). */
const seenTitle = (listed: string | null | undefined, recorded: string): string | null => (listed === undefined || listed === null || listed === recorded ? null : listed);

/** Writes the last-synced state of one document (call inside the transaction that closes its intent). */
export function recordAgreement(ctx: SyncContext, agreement: Agreement): void {
  const { fileText, baseText, fingerprint, remoteBlocks, remoteTime, conflictPath, predictedBlocksHash, conflictBase, wroteOver, hiddenEdit, lossyBase, formattingOnly, hiddenBase, agreedAt, headCarried, replacedHead, namedHere, readPlainly, imagesSent, listedTitle, readBack, madeFrom, ...rest } = agreement;
  // A whole record may be spread in: only the identity fields are taken from it (its place's time is the row's).
  const { remoteBlocksHash: _old, placedAt: _placed, inexact: _derived, inexactFormatting: _derivedToo, inexactHidden: _derivedToo2, builtOn: spreadBuiltOn, ...ids } = rest as typeof rest & {
    remoteBlocksHash?: string;
    placedAt?: number;
    inexact?: boolean;
    inexactFormatting?: boolean;
    inexactHidden?: boolean;
    builtOn?: string | null;
  };
  const pendingLocal = baseText !== fileText;
  // What the shared state holds of this document stays known: the publish step compares against it.
  const prior = ctx.ledger.documents.summary(ids.path);
  const sameDocument = prior?.docKey === ids.docKey;
  // Our own write is news to every machine even when its text is the one published (a body sent again for its
  // links, a forced push): the document's time moved, and only its record tells them it was kbsync (soak seed 500:
  // the other machine, holding that very text, was told HIDDEN_EDIT). So its record is published whatever its hash.
  const mark = sameDocument ? (wroteOver !== undefined ? writtenMark(prior.publishedRecord) : prior.publishedRecord) : null;
  const published = { publishedRecord: mark, publishedSource: sameDocument ? prior.publishedSource : null };
  // With edits pending, the stat fast path must not vouch for the file: it is re-read and differs from the base.
  // Its inode stays known: a held file moved (`mv`, and edited too) is found by it (decide/moves.ts).
  const stat = pendingLocal ? { ...UNMATCHABLE, ino: fingerprint.ino } : fingerprint;
  const localHash = hashText(pendingLocal ? baseText : fileText);
  const remoteBlocksHash = predictedBlocksHash ?? blocksHash(remoteBlocks);
  const sameVersion = sameDocument && prior.localHash === localHash && prior.remoteBlocksHash === remoteBlocksHash;
  // The prior row whole (its texts too), read once and only where a field the summary lacks is carried on.
  let priorRow: DocumentRecord | undefined;
  const whole = (): DocumentRecord | undefined => (priorRow ??= ctx.ledger.documents.get(ids.path));
  ctx.ledger.documents.upsert({
    ...ids,
    localHash,
    statSize: stat.size,
    statMtimeMs: stat.mtimeMs,
    statIno: stat.ino,
    baseMarkdown: baseText,
    remoteBlocks: [...remoteBlocks],
    remoteBlocksHash,
    alignment: align(splitText(baseText).body, remoteBlocks) as DocumentRecord['alignment'],
    remoteModifiedTime: remoteTime.modifiedTime,
    syncedAt: ctx.now().getTime(),
    recheck: remoteTime.recheck,
    conflict: conflictPath !== null,
    conflictPath,
    // Agreement ends any hold: the next hold is decided, and said, afresh. A new conflict was said as one,
    // so the hold it puts on the document (CONFLICT_OPEN, from the next run on) is not news.
    heldCode: conflictPath !== null ? 'CONFLICT_OPEN' : null,
    heldLocalHash: null,
    heldRemoteTime: null,
    ...published,
    imagesSent: imagesSent !== undefined ? imagesSent : sameDocument ? (prior.imagesSent ?? null) : null,
    listedTitle: seenTitle(listedTitle !== undefined ? listedTitle : sameDocument ? prior.listedTitle : null, ids.remoteTitle),
    placedAt: sameDocument ? prior.placedAt : 0,
    // Our own write keeps what it wrote over, and so does a read-back that finds that very version standing: another
    // writer's overwrite from a copy read before our write can land after any read of ours (its queue, its retries:
    // convergence soak 739 lost three edits to one that landed after the read-back). Any other agreement (a pull, a
    // merge, our next write) ends the window in which a racing overwrite could undo it.
    publishedOver: wroteOver ?? (readBack === true && sameVersion ? (whole()?.publishedOver ?? null) : null),
    hiddenEdit: hiddenEdit ?? null,
    lossyBase: lossyBase ?? false,
    formattingOnly: (lossyBase ?? false) && (formattingOnly ?? false),
    hiddenBase: (lossyBase ?? false) && (hiddenBase ?? false),
    headCarried: headCarried ?? false,
    namedHere: namedHere ?? (sameDocument && prior.namedHere),
    readPlainly: readPlainly ?? false,
    replacedHead: replacedHead ?? null,
    // A new version (text or document) gets the service's time now; a re-check of the same one keeps its time,
    // and what it was made from.
    agreedAt: sameVersion && agreedAt ? agreedAt : ctx.serverNow().getTime(),
    builtOn: sameVersion ? (spreadBuiltOn !== undefined ? spreadBuiltOn : (whole()?.builtOn ?? null)) : (madeFrom ?? null),
    conflictBase: conflictPath === null ? null : (conflictBase ?? (prior?.conflict ? (whole()?.conflictBase ?? null) : null)),
  });
  if (readBack === true && sameDocument && prior.localHash === localHash) keepPublishedOverReadBack(ctx.ledger, prior);
}

/**
 * Ends the record of a document this run deleted, moved away from or found gone: the ledger row goes, and
 * the shared state is told after the run (a `gone` record, noted durably with the row's end), so no other
 * machine keeps pairing it. `deleted`: this run deleted the document, its file as last synced holding that version.
 */
export function dropRecord(ctx: SyncContext, path: string, docKey: string, deleted?: string): void {
  ctx.ledger.transaction(() => {
    ctx.ledger.documents.remove(path);
    rememberGone(ctx.ledger, docKey, path, deleted);
  });
}

/**
 * Remembers a hold with what it was decided on. Returns false when the same hold already stood, so it
 * is not said again (a daemon cycle, a rerun, another save of the held file): held work is said once per
 * change of the document. A later save of the file waits for the same reason, which the user was told with
 * the first (an editor saving every few seconds made a warning and a desktop notice each time: soak 712). An
 * open conflict is the same hold while its copy stands, whatever the file and the document do. A document
 * time unknown on either side ('': not listed since our own write, or since a read that took in a change) is no
 * change: learning it is not news. The file's latest hash is remembered all the same (a held file that moves is
 * paired by it).
 */
export function recordHold(ctx: SyncContext, path: string, hold: Omit<HeldState, 'message'>): boolean {
  const summary = ctx.ledger.documents.summary(path);
  if (!summary) return true;
  const before = summary.heldRemoteTime ?? '';
  // Only a later time is news, and the time kept never goes back: a daemon's local cycle lists nothing and knows the
  // document by its record's older minute, and its holds, said again at every turn with the sweep's, were 217
  // warnings of ten holds in soak 717.
  const later = laterThan(hold.remoteModifiedTime, before);
  const known = later || before === '' ? hold.remoteModifiedTime : before;
  // Nor is a later time news while the record does not know the document's time: a local cycle that took a
  // colleague's edit into the held file agreed on that version with its time unknown, and kept the hold with the
  // record's minute from before it; the sweep a moment later listed the minute of that very edit, and said the hold
  // again (soak 721). A save since that a read shows is an agreement, which says the hold afresh; one it does not
  // show, an unknown time cannot tell.
  const moved = later && summary.remoteModifiedTime !== '';
  const same = summary.heldCode === hold.code && (hold.code === 'CONFLICT_OPEN' || !moved);
  if (same && known === before && summary.heldLocalHash === hold.localHash) return false;
  ctx.ledger.documents.update(path, { heldCode: hold.code, heldLocalHash: hold.localHash, heldRemoteTime: known });
  return !same;
}

export type DocumentIds = Pick<DocumentRecord, 'path' | 'docKey' | 'nodeId' | 'origin' | 'treeNodeId' | 'workspaceId' | 'parentTreeNodeId' | 'url' | 'remoteTitle' | 'members'>;

/** The ledger identity of a remote document kbsync did not create (linked or pulled): no creation nodeId. */
export function idsOfListed(ctx: SyncContext, remote: RemoteDoc, path: string, origin: 'linked' | 'pulled'): DocumentIds {
  return {
    path,
    docKey: remote.docKey,
    nodeId: null,
    origin,
    treeNodeId: remote.treeNodeId,
    workspaceId: ctx.workspaceId,
    parentTreeNodeId: remote.parentTreeNodeId,
    url: remote.url,
    remoteTitle: remote.title,
    members: [],
  };
}
