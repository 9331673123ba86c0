import type { DocumentRecord } from '../../ledger/index.js';
import type { SyncContext } from '../context.js';
import { flatTitle, folderOf } from '../placement.js';
import type { RemoteDoc } from '../types.js';
import { createDocument } from './create.js';
import { reconcile, type DocOutcome } from './reconcile.js';
import { deleteRemote } from './removals.js';

/**
 * A file renamed or moved locally. The service has no rename or move, so:
 * - within one remote folder (or when the remote changed too, whose edits must not be lost by a
 *   delete), the document keeps its id and the ledger follows the file;
 * - to another folder, the document is created anew at the new place and pushed, and only then is
 *   the old one deleted (guarded like any delete), so a crash in between leaves two documents, never none.
 */
export async function move(ctx: SyncContext, record: DocumentRecord, to: string, listed: RemoteDoc | undefined, changed: { local: boolean; remote: boolean }): Promise<DocOutcome> {
  const sameFolder = ctx.layout === 'folders' && folderOf(record.path, ctx.layout) === folderOf(to, ctx.layout);
  if (sameFolder || changed.remote || record.nodeId === null) {
    ctx.ledger.documents.rename(record.path, to);
    const moved = ctx.ledger.documents.get(to) as DocumentRecord;
    if (!changed.local && !changed.remote) return { path: to, result: 'unchanged', detail: `renamed from ${record.path}` };
    const outcome = await reconcile(ctx, moved, listed);
    return { ...outcome, detail: `renamed from ${record.path}${outcome.detail ? `; ${outcome.detail}` : ''}` };
  }
  const created = await createDocument(ctx, to, ctx.layout === 'flat' ? flatTitle(to) : record.remoteTitle);
  const removed = await deleteRemote(ctx, record);
  return { path: to, result: created.result, detail: `moved from ${record.path}; ${removed.detail ?? 'old document deleted'}` };
}
