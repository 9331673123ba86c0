import { renameFile } from '../../local/index.js';
import type { SyncContext } from '../run/context.js';
import type { RecordEntry, RemoteDoc } from '../decide/types.js';
import { movedAfterDocument } from '../decide/moves.js';
import type { DocOutcome } from './apply-body.js';
import { withIntent } from './intent.js';
import { fingerprintOf } from './local-files.js';

/**
 * A document moved to another folder in the knowledge base, or its file renamed by another machine (the
 * shared state says so): the file moves with its exact bytes (front matter, code and formatting the
 * service does not show stay as written), and the record follows both.
 */
export async function moveLocal(ctx: SyncContext, record: RecordEntry, to: string, listed: RemoteDoc, renamedElsewhere = false): Promise<DocOutcome> {
  const expect = await fingerprintOf(ctx, record.path);
  await withIntent(
    ctx,
    // Why it moves, too: a run killed before the record says the move as this one would (interrupted.ts interruptedFollow).
    { kind: 'move-local', subject: record.path, payload: { docKey: record.docKey, to, ...(renamedElsewhere ? { elsewhere: true } : {}) } },
    async () => {
      await renameFile(ctx.root, record.path, to, expect);
      ctx.scanned.moved(record.path, to);
    },
    // A rename keeps size, mtime and inode: the recorded fingerprint still holds.
    () => followPlace(ctx, record.path, to, listed),
  );
  return { path: to, result: 'pulled', detail: movedAfterDocument(record.path, renamedElsewhere) };
}

/** The record follows its document to the place the knowledge base now has it at. */
export function followPlace(ctx: SyncContext, from: string, to: string, listed: Pick<RemoteDoc, 'parentTreeNodeId'>): void {
  ctx.ledger.transaction(() => {
    ctx.ledger.documents.rename(from, to);
    ctx.ledger.documents.update(to, { parentTreeNodeId: listed.parentTreeNodeId, placedAt: ctx.store.clock.now() });
  });
}

/**
 * The record follows a file the person renamed while its document may not change (an open conflict): the
 * document stays where it is, and a move to another folder is finished once it may (the plan sees a record in a
 * folder its document is not in).
 */
export function followRename(ctx: SyncContext, from: string, to: string): void {
  ctx.ledger.transaction(() => {
    ctx.ledger.documents.rename(from, to);
    ctx.ledger.documents.update(to, { placedAt: ctx.store.clock.now() });
  });
}
