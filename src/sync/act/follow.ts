import { join } from 'node:path';
import { moveToTrash } from '../../local/index.js';
import type { SyncContext } from '../run/context.js';
import type { RecordEntry } from '../decide/types.js';
import { followPatch } from '../decide/follow.js';
import { rememberGone } from '../state/pending-gone.js';
import { fingerprintOf } from './local-files.js';

/**
 * Rebinds the ledger row of a record that follows a document another writer replaced (decide/follow.ts),
 * before anything else is done with it; the shared state is told this machine no longer pairs the old one.
 * A copy of the new document pulled here before that writer's record came (RecordEntry `absorbs`) gives the
 * followed record its place: its row goes in the same transaction (no `gone`: its document lives on, paired
 * now with this record), then its file, unchanged since, to kbsync's trash. In that order, a run killed
 * between them leaves a file no record pairs, never a row whose file is missing, which would read as a file
 * deleted here, and delete the document. Returns what the run says of the copy.
 */
export async function followReplacement(ctx: SyncContext, record: RecordEntry): Promise<string | undefined> {
  const replaced = record.follows;
  if (replaced === undefined || ctx.ledger.documents.summary(record.path)?.docKey !== replaced) return undefined;
  const copy = record.absorbs !== undefined && ctx.ledger.documents.summary(record.absorbs)?.docKey === record.docKey ? record.absorbs : undefined;
  const expect = copy === undefined ? undefined : await fingerprintOf(ctx, copy);
  ctx.ledger.transaction(() => {
    if (copy !== undefined) ctx.ledger.documents.remove(copy);
    ctx.ledger.documents.update(record.path, followPatch(record, ctx.remote?.docs.get(record.docKey)?.url ?? ''));
    rememberGone(ctx.ledger, replaced, record.path);
  });
  if (copy === undefined || expect === undefined) return undefined;
  const trashed = await moveToTrash(ctx.root, copy, join(ctx.stateDir, 'trash'), { expect, now: ctx.now() });
  return `${copy}, a copy of the moved page pulled here before that machine's record of the move came, was moved to ${trashed}`;
}
