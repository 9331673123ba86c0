import type { ImagePublisher } from '../../images/publisher.js';
import type { OpenIntent } from '../../ledger/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import type { LoadedState, RemoteStateStore } from '../../remote-state/store.js';
import { SafetyError } from '../../errors.js';
import { assertSameWorkspace, observeAndPlan, workspaceRoot, type Observation } from '../observe/observe.js';
import { listingFor } from '../observe/options.js';
import { runImages } from '../content/images.js';
import { neverPublished, publicationOwed } from '../state/run.js';
import { openStateStore } from '../state/store.js';
import type { Run, SyncOptions } from './inputs.js';
import { TeamSettings } from '../state/team.js';
import { keyFingerprint } from '../../remote-state/token.js';
import type { Action } from '../decide/types.js';

/** Actions that change a document, a file or the ledger's records (a check only reads; a held file waits). */
const writes = (actions: readonly Action[]): boolean => actions.some((action) => action.kind !== 'check' && action.kind !== 'held');

/** What the run found on both sides, its plan, and what the later phases go on using. */
export type Observed = {
  readonly observation: Observation;
  /** Operations an interrupted run left open: this run reconciles them (the report counts them as `resumed`). */
  readonly interrupted: readonly OpenIntent[];
  readonly rootId: TreeNodeId;
  readonly store: RemoteStateStore;
  /** This run publishes the ledger's rows to the shared state for the first time (state/run.ts, neverPublished). */
  readonly migrating: boolean;
  /** An earlier run owes a publish (killed before it went out, or it failed): this run publishes (state/run.ts, owePublication). */
  readonly owed: boolean;
  readonly images: ImagePublisher;
  /** The shared state as loaded so far: with the listing, or later, by the first image this ledger does not know. */
  readonly shared: () => LoadedState | undefined;
  /** The run's options as the team's settings have them (state/team.ts): what every later phase works with. */
  readonly options: SyncOptions;
  /** The team's settings as this run follows and publishes them. */
  readonly team: TeamSettings<SyncOptions>;
};

/**
 * Observe: the workspace and its root, the shared state's store, both sides and the plan made from them. A
 * plan the guards refused stops the run here (rule 4), before anything is decided or done.
 */
export async function observe(run: Run): Promise<Observed> {
  const { deps } = run;
  const { client, ledger, logger } = deps;
  assertSameWorkspace(ledger, run.options.workspaceId, true);
  const interrupted = ledger.intents.open();
  if (interrupted.length > 0) {
    // Recovery is kbsync's own business (the report counts it as `resumed`): a person needs no line per operation.
    logger.debug({ intents: interrupted.map((i) => `${i.kind} ${i.subject}`) }, 'a previous run was interrupted during %d operations; reconciling them first', interrupted.length);
  }

  const rootId = await workspaceRoot(client, ledger, run.options, true);
  const secret = await run.options.stateKey?.get();
  const keySource = run.options.stateKey?.description ?? "this machine's state key";
  const team = new TeamSettings(run.options, { ledger, rootId }, { fingerprint: secret ? keyFingerprint(secret) : null, source: keySource });
  const store = openStateStore(deps, { workspaceId: run.options.workspaceId, rootId }, secret, { keySource, team });
  // A ledger that never told the shared state what it holds (kbsync before the shared state) tells it now.
  const migrating = neverPublished(ledger);
  // The team's settings decide how every file is read: unknown here (a fresh checkout, a clone), they are read first.
  let shared: LoadedState | undefined = team.readFirst ? await store.load() : undefined;
  const options = team.follow();
  // Known once observed: the images each document was last sent with.
  const seen: { records?: Observation['records'] } = {};
  // Image URLs another machine uploaded are asked of the shared state on the first image this ledger does not know.
  const images = runImages(options.root, options, ledger.images, {
    // Learnt as the shared state's own (published), so they are not appended to it again as this machine's uploads.
    shared: async () => {
      shared ??= await store.load();
      ledger.images.learn(shared.state.images);
      return shared.state.images;
    },
    sentBefore: (path) => seen.records?.get(path)?.images,
    // kbsync is stopping now (Ctrl+C, SIGTERM, the daemon's deadline): an upload still running is stopped.
    signal: client.queue.signal,
  });
  const observation = await observeAndPlan(
    { client, ledger, rootId: async () => rootId, store: () => store, imagesStale: (sent) => images.stale(sent) },
    { ...options, listRemote: options.listRemote ?? listingFor(options.mode, migrating), settledTree: !(options.checkLinks ?? false) },
  );
  const planned = observation.plan;
  shared = observation.shared ?? shared;
  seen.records = observation.records;
  if (shared) ledger.images.learn(shared.state.images);
  if (planned.refusal) throw new SafetyError(planned.refusal.code, planned.refusal.message);
  const owed = publicationOwed(ledger);
  // Decided before anything is written: a run that will write, and would read the shared state only to
  // publish (after its writes), reads it now. Its key is then checked (key-check.ts) before the first write,
  // not met as a publish that fails after it (the same read, earlier). A run that appended within the last
  // minutes under this very key appends there again without a read (store.ts, needsLoad).
  if (shared === undefined && store.needsLoad && (writes(planned.actions) || migrating || owed || ledger.retirements.all().length > 0)) shared = await store.load();
  options.onPlanned?.(planned.actions.length, planned.actions.filter((action) => action.kind === 'check').length);
  return { observation, interrupted, rootId, store, migrating, owed, images, shared: () => shared, options, team };
}
