import { isForbidden, isThrottled, isUnauthorized } from '../../api/index.js';
import type { ErrorCode } from '../../codes.js';
import { KbsyncError, messageOf } from '../../errors.js';
import { explainFsError } from '../../local/index.js';
import PQueue from 'p-queue';
import type { DocOutcome } from '../act/apply-body.js';
import { currentText } from '../act/local-files.js';
import { createAttempts } from '../act/intent.js';
import { followReplacement } from '../act/follow.js';
import { assess, nodeOf, plannedKind, type AssessIO } from '../views/assess.js';
import { sharedVersions } from '../state/published-version.js';
import { Births } from './births.js';
import { Deletions } from './deletions.js';
import { StoppedBeforeStart } from './stopped.js';
import type { SyncContext } from './context.js';
import { formerPath, pathOf } from '../decide/placement.js';
import type { Action, DecisionKind } from '../decide/types.js';
import { perform, type Carrier, type Slot } from './handlers.js';

/** `from`: where the file was, for an action that moved it or its document (as the previews name it). */
export type ActionResult =
  | (DocOutcome & { readonly action: DecisionKind; readonly from?: string; readonly ok: true; readonly reason?: string })
  | { readonly action: DecisionKind; readonly path: string; readonly from?: string; readonly ok: false; readonly code: ErrorCode; readonly error: string };

type ExecuteOptions = {
  /** Documents worked on at once. The queue paces the calls; this only bounds memory and open files. */
  readonly concurrency?: number;
  readonly onResult?: (result: ActionResult) => void;
  /** Once aborted (Ctrl+C, SIGTERM), no further action starts; those under way finish and are recorded. */
  readonly signal?: AbortSignal;
};

/**
 * Carries out a plan. Each action is assessed (the reads it needs, then the pure decision, exactly as
 * every preview does) and the decision is carried out. One document's failure is reported and does not
 * stop the others; folders come first because the plan is ordered by path. The exception: an answer that
 * every other call would get too (the token rejected, a permission scope missing) stops the run and is
 * thrown once the actions in flight have settled, so the user sees one clear error (exit 4) instead of a
 * failure per file, and the service is not asked a thousand times in vain.
 */
export async function execute(ctx: SyncContext, actions: readonly Action[], options: ExecuteOptions = {}): Promise<ActionResult[]> {
  // A body waiting for its links' documents gives its slot up, and takes the next free one before any
  // action not started yet: documents go out as soon as they can, and a wait never starves the creates it needs.
  const queue = new PQueue({ concurrency: options.concurrency ?? 24 });
  const slot: Slot = (task, priority = 0) => queue.add(task, { priority });
  const folders = actions.filter((a) => a.kind === 'new-local-folder');
  const rest = actions.filter((a) => a.kind !== 'new-local-folder');
  const births = new Births(rest.filter((a) => a.kind === 'create' || a.kind === 'recreate').map(pathOf));
  const deletions = new Deletions(rest.flatMap((a) => (a.kind === 'create' && a.afterDelete ? [a.afterDelete.path] : [])));
  const results: ActionResult[] = [];
  let stop: { readonly error: unknown } | undefined;
  const io = assessIO(ctx);
  const stopped = (): boolean => stop !== undefined || options.signal?.aborted === true;
  const run = async (action: Action, inSlot: Slot): Promise<void> => {
    let result: ActionResult | undefined;
    try {
      // A title this run frees by a delete is taken once that delete is over, else the one planned instead:
      // waited for before a slot is taken, so creates waiting never keep the delete from its turn.
      const titled = action.kind === 'create' && action.afterDelete ? { ...action, title: (await deletions.gone(action.afterDelete.path)) ? action.title : action.afterDelete.otherwise } : action;
      result = await carryOut({ ctx, io, births, slot: inSlot, stopped }, titled, (error) => {
        if (stopsTheRun(error)) stop ??= { error };
      });
      if (!result) return;
      results.push(result);
      options.onResult?.(result);
    } finally {
      births.born(pathOf(action));
      if (action.kind === 'delete-remote') deletions.settled(action.record.path, result?.ok === true && (result.action === 'delete-remote' || result.action === 'forget'));
    }
  };
  for (const folder of folders) await run(folder, (task) => task());
  // Fed as slots free up, a slot's worth waiting, not the whole plan at once: every action handed over holds
  // a queued task, a promise and its paused steps (about 3 KB), most of a first push's memory at 10,000 files.
  // The order they start in is the plan's all the same, and a freed slot always finds one waiting.
  const started = new Set<Promise<void>>();
  for (const action of rest) {
    await queue.onSizeLessThan(queue.concurrency);
    const running: Promise<void> = run(action, slot).finally(() => started.delete(running));
    started.add(running);
  }
  await Promise.all(started);
  if (stop) throw stop.error;
  return results;
}

const LATER_FIRST = 1;

/** Where the file was, for an action that moved it or its document: the result says `from → path`, as the previews do. */
function fromOf(action: Action): { readonly from?: string } {
  const from = formerPath(action);
  return from === undefined ? {} : { from };
}

/** The reads a decision needs, answered from this run's context (texts read by the scan are not read twice). */
export function assessIO(ctx: SyncContext): AssessIO {
  return {
    mode: ctx.mode,
    force: ctx.force,
    webEdits: ctx.webEdits,
    layout: ctx.layout,
    urlOf: ctx.urlOf,
    workspaceId: ctx.workspaceId,
    released: ctx.released,
    readBlocks: (docKey) => ctx.client.readBlocks(docKey),
    record: (path) => ctx.ledger.documents.get(path),
    listed: (docKey) => ctx.remote?.docs.get(docKey),
    node: (record) => nodeOf(ctx.client, record),
    source: async (hash) => (await ctx.store.sources(new Set([hash]))).get(hash),
    ...sharedVersions(ctx.store, ctx.shared),
    fileText: (path) => currentText(ctx, path),
    openIntents: () => ctx.ledger.intents.open(),
    createAttempts: (path) => createAttempts(ctx.ledger, path),
    serverNow: ctx.serverNow,
  };
}

/**
 * Failures about the credentials, not the document: every further call would fail the same way. A scope
 * missing only for sharing (front matter `members`) is the exception: bodies still sync, so it stays per file.
 * So is a throttle kbsync gave up waiting out (the service asked for more than it waits, or kept throttling):
 * the next call would only be throttled too.
 */
const stopsTheRun = (error: unknown): boolean =>
  isUnauthorized(error) || isThrottled(error) || (isForbidden(error) && (error.requiredScopes?.length ?? 0) > 0 && !MEMBER_ENDPOINTS.has(error.endpoint));

const MEMBER_ENDPOINTS: ReadonlySet<string> = new Set(['addMembers', 'updateMember', 'removeMember']);

/** Undefined when the run stopped before the action's turn came: it is left, whole, to the next run. */
async function carryOut(carrier: Carrier, action: Action, onError: (error: unknown) => void): Promise<ActionResult | undefined> {
  const { ctx, io, slot } = carrier;
  let kind = plannedKind(action);
  try {
    const started = await slot(async () => {
      if (carrier.stopped()) return undefined;
      const followed = 'record' in action ? await followReplacement(ctx, action.record) : undefined;
      const assessment = await assess(io, action);
      kind = assessment.kind;
      return { assessment, followed, step: await perform(carrier, assessment) };
    });
    if (!started) return undefined;
    const { assessment, followed, step } = started;
    const outcome = 'after' in step ? await step.after.then(() => slot(step.finish, LATER_FIRST)) : step;
    const note = assessment.note && !outcome.detail?.includes(assessment.note) ? assessment.note : undefined;
    const detail = [outcome.detail, note, followed].filter(Boolean).join('; ');
    // Object.assign, not a spread and more properties: on Node 20's V8 such an object gets a hidden class of its own
    // (about 0.2 KB), and a run keeps every result for its report (2 MB through a first push of 10,000 notes).
    return Object.assign({}, outcome, detail ? { detail } : {}, { action: kind }, fromOf(action), { ok: true as const }, assessment.held ? { reason: assessment.held.code } : {});
  } catch (thrown) {
    if (thrown instanceof StoppedBeforeStart) return undefined;
    const error = explainFsError(thrown, pathOf(action));
    ctx.logger.debug({ err: error, path: pathOf(action) }, 'action failed');
    onError(error);
    return { action: kind, path: pathOf(action), ...fromOf(action), ok: false, code: error instanceof KbsyncError ? error.code : 'UNEXPECTED', error: messageOf(error) };
  }
}
