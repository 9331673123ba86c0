import { join } from 'node:path';
import { isNotFound } from '../../api/index.js';
import type { DocumentRecord } from '../../ledger/index.js';
import { backupText, hashText, moveToTrash } from '../../local/index.js';
import { blocksHash, blocksToMarkdown } from '../../markdown/index.js';
import type { SyncContext } from '../context.js';
import { withIntent } from './intent.js';
import { currentText, fingerprintOf } from './local-files.js';
import type { DocOutcome } from './reconcile.js';
import { restore } from './incoming.js';
import { createDocument } from './create.js';

/**
 * Deletes the document of a file the user deleted, after checking (rule 3) that nobody edited it since
 * the last sync: an edit beats a delete, so an edited document comes back as a file instead.
 */
export async function deleteRemote(ctx: SyncContext, record: DocumentRecord): Promise<DocOutcome> {
  const path = record.path;
  let blocks;
  try {
    blocks = await ctx.client.readBlocks(record.docKey);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.ledger.documents.remove(path);
    return { path, result: 'unchanged', detail: 'already deleted in the knowledge base' };
  }
  if (blocksHash(blocks) !== record.remoteBlocksHash) {
    if (ctx.mode === 'push') return { path, result: 'held', detail: 'deleted locally but edited in the knowledge base since; a two-way sync restores the file' };
    return restore(ctx, record, undefined, blocks);
  }
  const nodeId = record.nodeId;
  if (nodeId === null) {
    return {
      path,
      result: 'held',
      detail:
        'deleted locally, but kbsync did not create this document (it was linked or pulled), and the service deletes a ' +
        'document only by the id returned when it was created. Delete it in the web editor; the next sync then forgets it.',
    };
  }
  await backupText(ctx.stateDir, 'remote', path, blocksToMarkdown(blocks), { now: ctx.now() });
  await withIntent(
    ctx,
    { kind: 'delete', subject: path, payload: { docKey: record.docKey, nodeId } },
    async () => {
      try {
        await ctx.client.deleteDocument(ctx.workspaceId, nodeId);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    () => ctx.ledger.documents.remove(path),
  );
  return { path, result: 'pushed', detail: 'deleted in the knowledge base (body backed up)' };
}

/**
 * Moves the file of a document deleted in the knowledge base to kbsync's trash, if the file is still
 * what was last synced; an edited file wins and its document is created anew.
 */
export async function trashLocal(ctx: SyncContext, record: DocumentRecord): Promise<DocOutcome> {
  const path = record.path;
  const text = await currentText(ctx, path);
  if (!text) {
    ctx.ledger.documents.remove(path);
    return { path, result: 'unchanged', detail: 'gone on both sides' };
  }
  if (hashText(text.text) !== record.localHash) {
    if (ctx.mode === 'pull') return { path, result: 'held', detail: 'deleted in the knowledge base but edited locally; a push creates it again' };
    ctx.ledger.documents.remove(path);
    return createDocument(ctx, path, record.remoteTitle);
  }
  const expect = await fingerprintOf(ctx, path);
  const trashed = await withIntent(
    ctx,
    { kind: 'trash', subject: path, payload: { docKey: record.docKey } },
    () => moveToTrash(ctx.root, path, join(ctx.stateDir, 'trash'), { expect, now: ctx.now() }),
    () => ctx.ledger.documents.remove(path),
  );
  return { path, result: 'pulled', detail: `deleted in the knowledge base; the file was moved to ${trashed}` };
}

export function forget(ctx: SyncContext, record: DocumentRecord): DocOutcome {
  ctx.ledger.documents.remove(record.path);
  return { path: record.path, result: 'unchanged', detail: 'deleted on both sides' };
}
