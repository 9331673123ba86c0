import { join } from 'node:path';
import { isNotFound } from '../../api/index.js';
import type { DocumentRecord, Retirement } from '../../ledger/index.js';
import { backupText, moveToTrash } from '../../local/index.js';
import { blocksToMarkdown } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import type { DocOutcome } from './apply-body.js';
import { withIntent } from './intent.js';
import { dropRecord } from './record.js';
import { stateRecordOf } from '../state/publish.js';
import { fingerprintOf } from './local-files.js';

const DELETED = 'deleted in the knowledge base (body backed up)';

/** Deletes the document of a file the user deleted, its body (as just read) backed up first. */
export async function deleteRemote(ctx: SyncContext, record: DocumentRecord, blocks: readonly Block[]): Promise<DocOutcome> {
  const path = record.path;
  const nodeId = record.nodeId;
  if (nodeId === null) throw new Error(`deleteRemote("${path}") without a creation nodeId: the decision should have held it`);
  await backupText(ctx.stateDir, 'remote', path, blocksToMarkdown(blocks), { now: ctx.now() });
  await withIntent(
    ctx,
    { kind: 'delete', subject: path, payload: { docKey: record.docKey, nodeId } },
    () => deleteIfPresent(ctx, nodeId),
    // The version deleted, all this machine knew of the page: another's edit made from it after its last look comes back.
    () => dropRecord(ctx, path, record.docKey, record.localHash),
  );
  return { path, result: 'pushed', detail: DELETED };
}

/**
 * Keeps the promises made by moves: each old document is deleted (already gone counts as done), once the shared
 * state says which document replaced it. A move records the new document and this promise in one transaction, then
 * appends the new one's ids with `rp` (create.ts); a run killed between them left a state that never learnt it, and
 * this delete then showed every other machine a plain deletion: a file edited there made the page again, a second
 * document (soak seed 712's replay). So that record goes first, unless the state this run read has it.
 */
export async function retire(ctx: SyncContext, retirement: Retirement): Promise<void> {
  const successor = retirement.successor === null ? undefined : ctx.ledger.documents.byDocKey(retirement.successor);
  if (successor && ctx.shared?.state.replacedBy.get(retirement.docKey)?.includes(successor.docKey) !== true) await ctx.journal.replaced({ ...stateRecordOf(successor), rp: retirement.docKey });
  await deleteIfPresent(ctx, retirement.nodeId);
  ctx.ledger.retirements.done(retirement.docKey);
}

async function deleteIfPresent(ctx: SyncContext, nodeId: NonNullable<DocumentRecord['nodeId']>): Promise<void> {
  try {
    await ctx.client.deleteDocument(ctx.workspaceId, nodeId);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** What a run says of a file whose document was deleted lately, its deleter's record not come yet (decide/removals.ts decideTrash). */
export const TRASH_WAITS_FOR_GONE =
  "deleted in the knowledge base while its last version was under two minutes old, and the deleting machine's record, which says whether the delete saw that version, has not come yet: " +
  "the file stays as it is for now; the next run makes the page again from it if the delete did not see it, and else moves it to kbsync's trash (so too once two minutes pass with no record: a delete in the web editor)";

/** A file whose document was deleted, left for the next run to decide (TrashDecision waiting): nothing moved or recorded. */
export const trashWaits = (path: string): DocOutcome => ({ path, result: 'unchanged', detail: TRASH_WAITS_FOR_GONE, unrecorded: true });

/** Moves the file of a document deleted in the knowledge base to kbsync's trash (it is still what was last synced). */
export async function trashLocal(ctx: SyncContext, record: DocumentRecord): Promise<DocOutcome> {
  const path = record.path;
  const expect = await fingerprintOf(ctx, path);
  const trashed = await withIntent(
    ctx,
    { kind: 'trash', subject: path, payload: { docKey: record.docKey } },
    () => moveToTrash(ctx.root, path, join(ctx.stateDir, 'trash'), { expect, now: ctx.now() }),
    () => dropRecord(ctx, path, record.docKey),
  );
  return { path, result: 'pulled', detail: `deleted in the knowledge base; the file was moved to ${trashed}` };
}

/**
 * The record of a file whose removal an interrupted run made (deleteRemote or trashLocal, killed before its record) is
 * dropped, and the removal said as that run would have said it.
 */
export function removalFinished(ctx: SyncContext, record: Pick<DocumentRecord, 'path' | 'docKey' | 'localHash'>, removal: 'trash-local' | 'delete-remote'): DocOutcome {
  if (removal === 'delete-remote') {
    dropRecord(ctx, record.path, record.docKey, record.localHash);
    return { path: record.path, result: 'pushed', detail: DELETED };
  }
  return { ...forget(ctx, record, `deleted in the knowledge base; the file was moved to ${join(ctx.stateDir, 'trash')} by a run interrupted before it could say so`), result: 'pulled' };
}

export function forget(ctx: SyncContext, record: Pick<DocumentRecord, 'path' | 'docKey'>, detail: string): DocOutcome {
  const path = record.path;
  dropRecord(ctx, path, record.docKey);
  return { path, result: 'unchanged', detail };
}
