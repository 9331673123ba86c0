import type { Ledger } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import { maintainState } from '../../remote-state/compaction.js';
import { describeJunk, hasJunk } from '../../remote-state/junk.js';
import { STATE_FOLDER, type LoadedState, type RemoteStateStore } from '../../remote-state/store.js';
import { messageOf, SafetyError } from '../../errors.js';
import { crashPoint } from '../run/crash-points.js';
import type { Notice } from '../decide/types.js';
import type { LocalProblem } from '../observe/observe-local.js';
import { clearPendingGone, pendingGone } from './pending-gone.js';
import { publishState, type TeamPublication } from './publish.js';
import { deletableStateDoc, ownStateDocs, rememberOwnStateDocs } from './store.js';

/**
 * Ledger meta key: a publish is owed (owePublication): set before a run acts, left by a run killed before its
 * publish went out or whose publish failed, cleared when a publish goes out. The next run publishes, whatever
 * else it does. (The name is older than the mark's first use: a failed publish.)
 */
const OWED_KEY = 'state.dirty';

/** Ledger meta key: this ledger's rows were published to the shared state at least once. */
const STATE_PUBLISHED_KEY = 'state.published';

/** A ledger that never told the shared state what it holds (kbsync before the shared state): its next run tells it. */
export const neverPublished = (ledger: Ledger): boolean => ledger.meta.get(STATE_PUBLISHED_KEY) !== true && ledger.documents.count() > 0;

/** This ledger's rows reached the shared state. */
export const markPublished = (ledger: Ledger): void => ledger.meta.set(STATE_PUBLISHED_KEY, true);

/**
 * Before a run acts: the shared state is owed a publish until this run's own has gone out. A run killed after
 * its last action was recorded (every intent closed) and before or during its publish leaves nothing else that
 * tells the next run: with nothing to do, that run skipped publishing, and other machines and CI did not learn
 * of the killed run's writes until some later run wrote or read the state.
 */
function owePublication(ledger: Ledger): void {
  if (!publicationOwed(ledger)) ledger.meta.set(OWED_KEY, true);
}

/** owePublication as a run starts to act: on disk before its first effect, whose intent syncs it (IntentsJournal.beforeNextIntent). */
export function owePublicationBeforeActing(ledger: Ledger): void {
  ledger.intents.beforeNextIntent(() => owePublication(ledger));
}

/** Read before a run acts: an earlier run owes a publish (it was killed before it went out, or it failed). */
export const publicationOwed = (ledger: Ledger): boolean => ledger.meta.get(OWED_KEY) === true;

const settlePublication = (ledger: Ledger): void => {
  if (publicationOwed(ledger)) ledger.meta.delete(OWED_KEY);
};

/**
 * After a run's actions: the shared state brought up to the ledger (state/publish.ts), then kept small
 * (compaction.ts). A run that changed nothing and read no state makes no call. A publish that fails stays
 * owed (the removals it had to tell stay noted, pending-gone.ts), so the next run publishes even if nothing
 * else changed;
 * and it is reported as a problem of this run (exit 1): in CI, whose ledger is discarded, a run must not
 * end quietly with creation ids the shared state does not have.
 */
export async function publishAndMaintain(
  deps: { readonly ledger: Ledger; readonly store: RemoteStateStore; readonly logger: Logger; readonly rootId: string; readonly team?: TeamPublication },
  run: {
    readonly loaded: LoadedState | undefined;
    readonly wrote: boolean;
    readonly pulled?: boolean;
    readonly migrating: boolean;
    /** An earlier run owes a publish (publicationOwed, read before this run marked its own). */
    readonly owed?: boolean;
  },
): Promise<LocalProblem[]> {
  const { ledger, store, logger } = deps;
  const removed = pendingGone(ledger);
  if (!(run.loaded || run.migrating || run.wrote || run.owed || removed.size > 0)) {
    // This run's own mark (it acted, and nothing of it is for the state): nothing is owed.
    settlePublication(ledger);
    return [];
  }
  let published: Awaited<ReturnType<typeof publishState>>;
  try {
    // Owed by an earlier run, whose append may have gone out before its marks (killed, or its answer lost):
    // read first, so it is not made twice.
    published = await publishState({ ledger, store, logger, loaded: run.loaded, removed, pulled: run.pulled === true || run.owed === true, ...(deps.team ? { team: deps.team } : {}) });
  } catch (error) {
    owePublication(ledger);
    // A refusal (this machine's key is not the team's) is no failure to publish: it stops the run, as it would have before its first write.
    if (error instanceof SafetyError) throw error;
    logger.debug({ err: error }, 'publishing the shared state failed');
    return [
      {
        path: STATE_FOLDER,
        code: 'STATE_NOT_PUBLISHED',
        message: `kbsync could not bring its shared state in the knowledge base up to date (${messageOf(error)}). This run's records, creation ids included, are in this machine's ledger, and the next run publishes them; in CI, where the ledger is discarded, run the job again.`,
      },
    ];
  }
  settlePublication(ledger);
  if (removed.size > 0) clearPendingGone(ledger);
  if (published.records + published.sources > 0) {
    const what = published.written.map(({ record }) => ('p' in record ? `${record.t} ${record.p}` : record.t));
    logger.debug({ records: published.records, sources: published.sources, what }, 'the shared state in the knowledge base was brought up to date');
  }
  const loaded = store.loaded;
  // A state read with tokens signed for the workspace alone is written anew bound to its folder (compaction.ts), even by a run that wrote nothing else.
  if (loaded && (published.written.length > 0 || loaded.workspaceBound > 0)) {
    const upkeep = { store, logger, now: Date.now, deletableId: deletableStateDoc(store, ownStateDocs(ledger, deps.rootId)), onStep: crashPoint };
    await maintainState(upkeep, loaded, published.written).catch((error: unknown) => logger.warn({ err: error }, `compacting the shared state failed (${messageOf(error)}); it stays as it is and is tried again later`));
  }
  rememberOwnStateDocs(ledger, deps.rootId, store, loaded ? new Set(loaded.docs.map((doc) => doc.docKey)) : undefined);
  return [];
}

/**
 * What a run says once about the shared state: that it planned from an unauthenticated one (no key), and
 * what it held that was left out. Said on the run's report, never as an error: syncing went on.
 */
export function stateNotices(store: RemoteStateStore, planned: boolean): Notice[] {
  const loaded = store.loaded;
  const notices: Notice[] = [];
  if (planned && !store.authenticated) {
    notices.push({
      path: STATE_FOLDER,
      code: 'STATE_UNAUTHENTICATED',
      message:
        "the shared state is not authenticated: this machine has no state key (state.key, default the environment variable KBSYNC_STATE_KEY), so anyone who can edit the workspace could have written it. kbsync pairs files by path and uses kept sources from it, but deletes no document on its word alone. Set the team's key (`kbsync init` makes one) to have every record verified.",
    });
  }
  if (loaded && hasJunk(loaded.junk)) notices.push({ path: STATE_FOLDER, code: 'STATE_JUNK', message: describeJunk(loaded.junk) });
  return notices;
}
