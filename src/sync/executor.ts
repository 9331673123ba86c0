import { isForbidden, isUnauthorized } from '../api/index.js';
import { KbsyncError, messageOf } from '../errors.js';
import type { DocumentRecord } from '../ledger/index.js';
import { createLimit } from '../local/limit.js';
import type { SyncContext } from './context.js';
import { adopt } from './steps/adopt.js';
import { createDocument } from './steps/create.js';
import { newLocal, newLocalFolder, restore } from './steps/incoming.js';
import { move } from './steps/move.js';
import { reconcile, type DocOutcome } from './steps/reconcile.js';
import { deleteRemote, forget, trashLocal } from './steps/removals.js';
import { pathOf } from './placement.js';
import type { Action, RecordEntry } from './types.js';

export type ActionResult =
  | (DocOutcome & { readonly action: Action['kind']; readonly ok: true })
  | { readonly action: Action['kind']; readonly path: string; readonly ok: false; readonly code: string; readonly error: string };

export type ExecuteOptions = {
  /** Documents worked on at once. The queue paces the calls; this only bounds memory and open files. */
  readonly concurrency?: number;
  readonly onResult?: (result: ActionResult) => void;
};

/**
 * Carries out a plan. One document's failure is reported and does not stop the others; folders come
 * before the documents in them because the plan is ordered by path. The exception: an answer that
 * every other call would get too (the token rejected, a permission scope missing) stops the run and
 * is thrown once the actions in flight have settled, so the user sees one clear error (exit 4)
 * instead of a failure per file, and the service is not asked a thousand times in vain.
 */
export async function execute(ctx: SyncContext, actions: readonly Action[], options: ExecuteOptions = {}): Promise<ActionResult[]> {
  const limit = createLimit(options.concurrency ?? 24);
  const folders = actions.filter((a) => a.kind === 'new-local-folder');
  const rest = actions.filter((a) => a.kind !== 'new-local-folder');
  const results: ActionResult[] = [];
  let stop: { readonly error: unknown } | undefined;
  const run = async (action: Action): Promise<void> => {
    if (stop) return;
    const result = await carryOut(ctx, action, (error) => {
      if (stopsTheRun(error)) stop ??= { error };
    });
    results.push(result);
    options.onResult?.(result);
  };
  for (const folder of folders) await run(folder);
  await Promise.all(rest.map((action) => limit(() => run(action))));
  if (stop) throw stop.error;
  return results;
}

/**
 * Failures about the credentials, not the document: every further call would fail the same way. A scope
 * missing only for sharing (front matter `members`) is the exception: bodies still sync, so it stays per file.
 */
const stopsTheRun = (error: unknown): boolean =>
  isUnauthorized(error) || (isForbidden(error) && (error.requiredScopes?.length ?? 0) > 0 && !MEMBER_ENDPOINTS.has(error.endpoint));

const MEMBER_ENDPOINTS: ReadonlySet<string> = new Set(['addMembers', 'updateMember', 'removeMember']);

async function carryOut(ctx: SyncContext, action: Action, onError: (error: unknown) => void): Promise<ActionResult> {
  const path = pathOf(action);
  try {
    const outcome = await dispatch(ctx, action);
    return { ...outcome, action: action.kind, ok: true };
  } catch (error) {
    ctx.logger.debug({ err: error, path }, 'action failed');
    onError(error);
    return { action: action.kind, path, ok: false, code: error instanceof KbsyncError ? error.code : 'UNEXPECTED', error: messageOf(error) };
  }
}

function dispatch(ctx: SyncContext, action: Action): Promise<DocOutcome> {
  switch (action.kind) {
    case 'create':
      return createDocument(ctx, action.path, action.title);
    case 'adopt':
      return adopt(ctx, action.path, action.remote);
    case 'push':
      return reconcile(ctx, full(ctx, action.record), ctx.remote?.docs.get(action.record.docKey));
    case 'check':
    case 'pull':
    case 'merge':
      return reconcile(ctx, full(ctx, action.record), action.remote);
    case 'delete-remote':
      return deleteRemote(ctx, full(ctx, action.record));
    case 'trash-local':
      return trashLocal(ctx, full(ctx, action.record));
    case 'recreate':
      return recreate(ctx, action.record);
    case 'restore':
      return restore(ctx, full(ctx, action.record), action.remote);
    case 'forget':
      return Promise.resolve(forget(ctx, full(ctx, action.record)));
    case 'move':
      return move(ctx, full(ctx, action.record), action.to, ctx.remote?.docs.get(action.record.docKey), {
        local: action.localChanged,
        remote: action.remoteChanged ?? false,
      });
    case 'new-local':
      return newLocal(ctx, action.remote, action.path);
    case 'new-local-folder':
      return newLocalFolder(ctx, action.folder);
  }
}

/** Deleted remotely, edited locally (possibly moved): the old row goes, the file gets a new document. */
async function recreate(ctx: SyncContext, entry: RecordEntry): Promise<DocOutcome> {
  const old = ctx.ledger.documents.byDocKey(entry.docKey);
  if (old) ctx.ledger.documents.remove(old.path);
  const outcome = await createDocument(ctx, entry.path, entry.remoteTitle);
  return { ...outcome, detail: 'deleted in the knowledge base but edited locally, so it was created again' };
}

function full(ctx: SyncContext, entry: RecordEntry): DocumentRecord {
  const record = ctx.ledger.documents.get(entry.path);
  if (!record) throw new KbsyncError('LEDGER_ROW_MISSING', `The ledger has no row for "${entry.path}" any more.`, { hint: 'Another step changed it during this run; sync again.' });
  return record;
}
