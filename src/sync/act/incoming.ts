import type { DocumentRecord } from '../../ledger/index.js';
import { join } from 'node:path';
import { ensureParentFolders, hashText, moveToTrash, writeFileAtomic } from '../../local/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import { laterThan } from '../decide/body.js';
import { crashPoint } from '../run/crash-points.js';
import type { ReadingMarks, RecordEntry, RemoteDoc, RemoteFolder } from '../decide/types.js';
import type { DocOutcome } from './apply-body.js';
import { withIntent } from './intent.js';
import { followPlace } from './move-local.js';
import { fingerprintOf } from './local-files.js';
import { encodeSentImages } from '../../images/sent.js';
import { idsOfListed, recordAgreement, remoteTimeOf, type DocumentIds, type RemoteTime } from './record.js';
import { minutePassed, stampedLately } from '../state/minutes.js';
import { listingAged } from './listed-again.js';
import { isNotFound } from '../../api/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import { blocksHash as blocksHashOf } from '../../markdown/index.js';

/** The file an interrupted pull left of a document deleted since, to kbsync's trash if it is still as it was scanned. */
export async function trashLeftover(ctx: SyncContext, path: string): Promise<DocOutcome> {
  const trashed = await moveToTrash(ctx.root, path, join(ctx.stateDir, 'trash'), { expect: await fingerprintOf(ctx, path), now: ctx.now() });
  return { path, result: 'pulled', detail: `an interrupted pull had left it, and its document was deleted in the knowledge base since; the file was moved to ${trashed}` };
}

/** What a run says of a new document another kbsync machine is writing, whose record it waits for (assess.ts incoming). */
export const WAITING_FOR_RECORD = 'new in the knowledge base, its first version written a moment ago by another kbsync machine: the next run takes it in, once that machine\'s record of it has come';

/**
 * A remote document this machine has never synced becomes a new local file (never over an existing one):
 * the source the shared state kept when it has it, else the service's reading. `leftover`: the file an
 * interrupted pull of it left at the path it had then; once this one is written, that copy (exactly what
 * kbsync wrote, checked against the scan) goes to kbsync's trash, so the document has one file.
 */
export async function newLocal(
  ctx: SyncContext,
  remote: RemoteDoc,
  path: string,
  incoming: { readonly text: string; readonly blocks: readonly Block[]; readonly blocksHash?: string; readonly known?: RecordEntry; readonly marks: ReadingMarks; readonly waiting?: true },
  leftover?: string,
): Promise<DocOutcome> {
  // Not decided yet (its writer's record is awaited): nothing written or recorded, so the next run takes it in.
  if (incoming.waiting === true) return { path, result: 'unchanged', detail: WAITING_FOR_RECORD, unrecorded: true };
  const { known } = incoming;
  // Without a kept source the file is the service's plain-text reading: links and emphasis the document
  // may have are not in it, so an overwrite from it is held (FLATTEN) unless it is an append.
  const ids = {
    ...idsOfListed(ctx, remote, path, 'pulled'),
    ...(known ? { nodeId: known.nodeId, origin: known.origin, imagesSent: encodeSentImages(known.images) } : {}),
    lossyBase: incoming.marks.lossy,
    formattingOnly: incoming.marks.formattingOnly === true,
    hiddenBase: incoming.marks.hiddenBase === true,
    hiddenEdit: incoming.marks.hiddenEdit,
    headCarried: incoming.marks.headCarried === true,
    // That writer's plain reading, taken as it kept it: the same reading, said so, so that the record here is the state's
    // (published without `pr`, it said otherwise, and could stand over the exact record the reading gives way to).
    readPlainly: known?.readPlainly === true && hashText(incoming.text) === known.localHash,
    // No writer's record of it known: its path is the one the listing made from its title (see the detail below).
    namedHere: known === undefined,
  };
  // The writer's record is of a minute later than the listing: the listing came before that write (soak seed 704: the
  // document listed when only made, taken in from the record of its body written minutes on). Recorded with the
  // listing's minute, the next listing's, every block the same, was said HIDDEN_EDIT of a page nobody had edited.
  const timeUnknown = known !== undefined && laterThan(known.remoteModifiedTime, remote.modifiedTime);
  // A read unlike the writer's record shows a save since that record, which may have come after the listing.
  const changedSinceRecord = known !== undefined && blocksHashOf(incoming.blocks) !== known.remoteBlocksHash;
  await writeIncoming(ctx, path, incoming.text, incoming.blocks, remote, ids, { ...(incoming.blocksHash ? { blocksHash: incoming.blocksHash } : {}), timeUnknown, changedSinceRecord });
  if (leftover !== undefined) {
    const trashed = await moveToTrash(ctx.root, leftover, join(ctx.stateDir, 'trash'), { expect: await fingerprintOf(ctx, leftover), now: ctx.now() });
    return { path, result: 'pulled', detail: `moved from ${leftover}, where an interrupted pull had left it (that copy is in ${trashed}), as its document's path changed since` };
  }
  return { path, result: 'pulled', detail: known ? 'from the knowledge base, as it was last synced' : 'new in the knowledge base' };
}

/**
 * A file deleted locally whose document was edited remotely comes back (an edit beats a delete): the
 * last-synced file with the remote's edits applied, so local formatting survives where it can. `at`: the
 * path of the folder the document was moved to meanwhile, where it comes back (at its old path it would be a
 * rename of the file to every other machine, which followed the move). The record moves first: a crash
 * before the write leaves a record whose file is missing where the document is, restored there by the rerun.
 */
export async function restore(ctx: SyncContext, record: DocumentRecord, listed: RemoteDoc | undefined, text: string, blocks: readonly Block[], marks: ReadingMarks, at?: string): Promise<DocOutcome> {
  const moved = at !== undefined && at !== record.path && listed !== undefined;
  if (moved) followPlace(ctx, record.path, at, listed);
  const path = moved ? at : record.path;
  // The listing showed the time last agreed, yet the document read holds another version: an edit came between the
  // listing and the read, at a minute this run did not list (soak seed 601: recorded with the older one, the next
  // listing's later minute, with every block the same, was said HIDDEN_EDIT). Its time is not known.
  const timeUnknown = listed !== undefined && listed.modifiedTime === record.remoteModifiedTime && blocksHashOf(blocks) !== record.remoteBlocksHash;
  await writeIncoming(
    ctx,
    path,
    text,
    blocks,
    listed,
    { ...record, path, ...(moved ? { parentTreeNodeId: listed.parentTreeNodeId } : {}), lossyBase: marks.lossy, formattingOnly: marks.formattingOnly === true, hiddenBase: marks.hiddenBase === true, hiddenEdit: marks.hiddenEdit, ...(marks.headCarried !== undefined ? { headCarried: marks.headCarried } : {}) },
    { timeUnknown },
  );
  const where = moved ? ` (at ${path}, where its document was moved from ${record.path})` : '';
  return { path, result: 'pulled', detail: `deleted locally but edited in the knowledge base, so the file was restored${where}` };
}

async function writeIncoming(
  ctx: SyncContext,
  path: string,
  text: string,
  blocks: readonly Block[],
  listed: RemoteDoc | undefined,
  ids: DocumentIds & { readonly lossyBase?: boolean; readonly formattingOnly?: boolean; readonly hiddenBase?: boolean; readonly hiddenEdit?: string | null; readonly imagesSent?: string | null; readonly headCarried?: boolean; readonly namedHere?: boolean; readonly readPlainly?: boolean },
  options: { readonly blocksHash?: string; readonly timeUnknown?: boolean; readonly changedSinceRecord?: boolean } = {},
): Promise<void> {
  const { blocksHash } = options;
  const remoteTime = options.timeUnknown === true ? remoteTimeOf(ctx, listed, undefined, true) : await timeOfRead(ctx, listed, ids.treeNodeId, options.changedSinceRecord === true);
  await withIntent(
    ctx,
    // The hash lets a rerun recognise this very text if the run dies before recording it (see adopt).
    { kind: 'write-local', subject: path, payload: { docKey: ids.docKey, hash: hashText(text) } },
    async () => {
      crashPoint('mid-pull');
      const fingerprint = await writeFileAtomic(ctx.root, path, text, { expect: 'absent' });
      crashPoint('after-local-write');
      return fingerprint;
    },
    (fingerprint) =>
      recordAgreement(ctx, {
        ...ids,
        path,
        fileText: text,
        baseText: text,
        fingerprint,
        remoteBlocks: blocks,
        ...(blocksHash ? { predictedBlocksHash: blocksHash } : {}),
        remoteTime,
        conflictPath: null,
      }),
  );
}

/**
 * The time of the blocks this pull read. A save made between the listing and the read bears a later minute than
 * the one listed, over blocks the read already shows: recorded with the listed minute, the next listing took it
 * for an edit reads cannot show (soak seed 500: another machine wrote the first body of a document this one had
 * listed empty, and this machine said HIDDEN_EDIT and held the file). So once the listed minute is over, a
 * document stamped in the last minutes (one being written now, where such a save is likely) is asked once more:
 * a later time leaves the time unknown until a listing shows it. One stamped earlier is not asked (a clone of an
 * old vault would pay a call a note): a save in the seconds between a listing and a read of a page nobody
 * touched for minutes is the window apply-body.ts's readingTime closes for documents already synced. Unless the read
 * shows that such a save came (`changedSinceRecord`: the blocks are not those of the writer's record the file is
 * taken from): the listing, minutes old by the read in a slow run or a long clone, may predate it (soak seed 715).
 * A listing that old is first brought up to date (listedNow).
 */
async function timeOfRead(ctx: SyncContext, listing: RemoteDoc | undefined, treeNodeId: TreeNodeId, changedSinceRecord: boolean): Promise<RemoteTime> {
  const now = ctx.serverNow();
  const fresh = listing && listingAged(listing, now) ? await listedNow(ctx, listing, now) : { listed: listing };
  if ('time' in fresh) return fresh.time;
  const { listed } = fresh;
  if (!listed || !minutePassed(listed.modifiedTime, now) || !(changedSinceRecord || stampedLately(listed.modifiedTime, now))) return remoteTimeOf(ctx, listed, undefined, !listed);
  const node = await ctx.client.getNode(treeNodeId).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  return remoteTimeOf(ctx, listed, undefined, node?.modifiedTime !== listed.modifiedTime);
}

/**
 * A listing aged by the read (listed-again.ts), brought up to date by one of its folder. Made after the read, it
 * gives the read's time itself: any save the read can show bears its minute or an earlier one, and a later save a
 * later one (only a save in the seconds between the read and that listing goes unseen, as between any read and the
 * next ask). Made shortly before the read, it is the listing the rules of timeOfRead apply to. Gone from its folder
 * (moved, deleted since): the time is not known until a listing shows it.
 */
async function listedNow(ctx: SyncContext, listing: RemoteDoc, now: Date): Promise<{ readonly time: RemoteTime } | { readonly listed: RemoteDoc }> {
  const again = await ctx.listedAgain.timeOf(listing, now.getTime());
  if (again.modifiedTime === undefined) return { time: remoteTimeOf(ctx, undefined, undefined, true) };
  const listed = { ...listing, modifiedTime: again.modifiedTime, listedAt: again.at };
  return again.at >= now.getTime() ? { time: remoteTimeOf(ctx, listed, undefined, false) } : { listed };
}

/** A remote folder becomes a local folder, remembered so that deleting it locally later is not undone. */
export async function newLocalFolder(ctx: SyncContext, folder: RemoteFolder): Promise<DocOutcome> {
  // Made as the parent of a name inside it: ensureParentFolders never creates through a symlink.
  await ensureParentFolders(ctx.root, `${folder.localPath}/_`, { create: true });
  ctx.ledger.folders.upsert({ path: folder.localPath, treeNodeId: folder.treeNodeId, nodeId: null, remoteTitle: folder.title });
  return { path: folder.localPath, result: 'pulled', detail: 'folder made here, as in the knowledge base' };
}
