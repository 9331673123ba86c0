import { isDeepStrictEqual } from 'node:util';
import type { KbClient } from '../api/index.js';
import { pruneBackups, type BackupRetention } from '../local/index.js';
import { SafetyError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { SyncContext } from './context.js';
import { decideAll, shown, type Previewed } from './decisions.js';
import { assessIO, execute, type ActionResult } from './executor.js';
import { retire } from './act/removals.js';
import { minuteOf } from './minutes.js';
import { stateSeen, stateSeenKey } from './state-seen.js';
import { pathOf } from './decide/placement.js';
import { STATE_FOLDER, type LoadedState } from '../remote-state/store.js';
import { forgetParseTrees } from '../markdown/parse.js';
import { publishAndMaintain, stateNotices } from './state-run.js';
import { openStateStore } from './state-store.js';
import { StateJournal } from './state-journal.js';
import { announceAhead } from './announce.js';
import type { StateKeySource } from '../setup/state-key.js';
import type { LocalProblem } from './observe/observe-local.js';
import { assertSameWorkspace, observeAndPlan, workspaceRoot, type Observation, type ObserveOptions } from './observe/observe.js';
import { buildReport, type SyncReport } from './report.js';
import type { LinkProblem, LinkSite } from '../links/index.js';
import { DEFAULT_SITE, linkReport, pushRewriter, relink, runLinker } from './run-links.js';
import { imageReport, imagesToUpload, prepareImages, runImages, sentBodies } from './run-images.js';
import type { ImageSettings } from '../images/types.js';
import { oneLine } from '../printable.js';

export type SyncOptions = Omit<ObserveOptions, 'listRemote' | 'settledTree'> & {
  readonly dryRun: boolean;
  readonly links: boolean;
  /** How the docs site addresses the files (site-absolute links). Default: the synced root at `/`. */
  readonly site?: LinkSite;
  /** Where local images are published (config `images`). Default: nowhere, and said (IMAGE_NOT_PUBLISHED). */
  readonly images?: ImageSettings;
  /** Report the broken links of every synced file, and send nothing when there is one. */
  readonly checkLinks?: boolean;
  /**
   * When to list the remote tree. 'always' (default for two-way and pull) lists it every run. 'if-needed'
   * (default for push; the daemon's local cycles) lists it only when new local files must be checked for
   * remote twins; otherwise the remote is taken as unchanged, which is safe because every write re-reads
   * the remote first (rule 3) and merges, and nothing is deleted locally without a listing.
   */
  readonly listRemote?: 'always' | 'if-needed';
  readonly onResult?: (result: ActionResult) => void;
  /** The number of actions planned, and how many of them only re-read a document to confirm it unchanged. */
  readonly onPlanned?: (count: number, checks: number) => void;
  /** Stops the run between actions (Ctrl+C, SIGTERM): what was done is recorded and reported, the rest waits for the next run. */
  readonly signal?: AbortSignal;
  /** How many backups of replaced bodies are kept; applied after each run that changed something. */
  readonly backups?: BackupRetention;
  /** The team's state key (config `state.key`): the shared state is signed and verified with it. */
  readonly stateKey?: StateKeySource;
};

/** Ledger meta key: this ledger's rows were published to the shared state at least once. */
const STATE_PUBLISHED_KEY = 'state.published';

export type SyncDeps = { readonly client: KbClient; readonly ledger: Ledger; readonly logger: Logger; readonly now?: () => Date };

/**
 * One sync cycle. Data flows one way: observe both sides, decide in the pure planner against the
 * ledger, act through the queue, record each result with its intent. Intents left open by an
 * interrupted run are reconciled by this very cycle: it observes both sides afresh, and the steps
 * recognise work already done (a body already there, a document already created) instead of repeating it.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncReport> {
  const { client, ledger, logger } = deps;
  const started = Date.now();
  const callsBefore = client.queue.stats().totals.calls;
  assertSameWorkspace(ledger, options.workspaceId, true);
  const interrupted = ledger.intents.open();
  if (interrupted.length > 0) {
    // Recovery is kbsync's own business (the report counts it as `resumed`): a person needs no line per operation.
    logger.debug({ intents: interrupted.map((i) => `${i.kind} ${i.subject}`) }, 'a previous run was interrupted during %d operations; reconciling them first', interrupted.length);
  }

  const rootId = await workspaceRoot(client, ledger, options, true);
  const store = openStateStore(deps, { workspaceId: options.workspaceId, rootId }, await options.stateKey?.get());
  // A ledger that never told the shared state what it holds (kbsync before the shared state) tells it now.
  const migrating = ledger.meta.get(STATE_PUBLISHED_KEY) !== true && ledger.documents.count() > 0;
  let shared: LoadedState | undefined;
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
    { ...options, listRemote: options.listRemote ?? (options.mode === 'push' && !migrating ? 'if-needed' : 'always'), settledTree: !(options.checkLinks ?? false) },
  );
  const { scan, local, remote, plan: planned } = observation;
  shared = observation.shared;
  seen.records = observation.records;
  if (shared) ledger.images.learn(shared.state.images);
  if (planned.refusal) throw new SafetyError(planned.refusal.code, planned.refusal.message);
  options.onPlanned?.(planned.actions.length, planned.actions.filter((action) => action.kind === 'check').length);

  // Links (src/links via ./run-links.ts): reported for the files this run sends; --check-links checks all and gates the run.
  const checkLinks = options.checkLinks ?? false;
  const linker = checkLinks && options.mode === 'pull' ? runLinker(observation, ledger, options.site ?? DEFAULT_SITE) : pushRewriter(observation, ledger, { ...options, links: options.links || checkLinks, images });
  // Worked out after the run from the parses its sends made (a push's first call waits for nothing it
  // does not need), unless --check-links gates the run on them.
  const reportLinks = (): LinkProblem[] => (linker ? linkReport(linker, observation, checkLinks) : []);
  const gate = checkLinks ? reportLinks() : undefined;
  // The bodies this run sends, read once for every image step (nothing is sent in a pull).
  const sent = options.mode === 'pull' ? [] : sentBodies(observation);
  const imageProblems = imageReport(images, sent);
  const linksBlock = gate !== undefined && gate.length > 0;

  let results: ActionResult[] = [];
  let stateProblems: LocalProblem[] = [];
  let decided: Omit<Previewed, 'assessment'>[];
  // A push that starts with no synced document (a CI job's fresh checkout) keeps its intents in a ledger that is
  // thrown away with the checkout. (A first two-way sync is a workstation's: its ledger stays.)
  const ledgerless = options.mode === 'push' && ledger.documents.count() === 0;
  const ctx: SyncContext = {
    root: scan.root,
    stateDir: options.stateDir,
    mode: options.mode,
    layout: options.layout,
    force: options.guards.force,
    released: planned.released ?? new Map(),
    urlOf: options.mode !== 'pull' ? linker : undefined,
    client,
    ledger,
    logger,
    workspaceId: options.workspaceId,
    rootId,
    remote,
    texts: local.texts,
    scanned: new Map(scan.files.map((file) => [file.path, file])),
    folderPromises: new Map(),
    shared: shared?.state,
    store,
    // Each new document's creation id goes to the shared state before anything depends on it; so does, in a
    // run that started without a ledger, what each write is about to make a document hold.
    announceWrites: ledgerless,
    journal: new StateJournal(async (records, sources) => store.publish(records, [...new Map(sources.map((source) => [source.hash, source])).values()].filter((source) => !store.hasSource(source.hash)))),
    now: deps.now ?? (() => new Date()),
    serverNow: () => client.serverTime() ?? new Date(),
  };
  if (options.dryRun || linksBlock) {
    decided = (await decideAll(assessIO(ctx), planned.actions)).map(({ assessment: _assessment, ...rest }) => rest);
  } else {
    // Old documents of moved files that an interrupted run promised to delete go first.
    for (const retirement of ledger.retirements.all()) await retire(ctx, retirement);
    // Images first: a body goes out whole, with every image's URL, or not at all.
    const ready = await prepareImages(images, sent, planned.actions);
    await announceAhead(ctx, ready.actions);
    for (const failure of ready.failed) options.onResult?.(failure);
    results = [...ready.failed];
    results.push(...await execute(ctx, ready.actions, {
      ...(options.onResult ? { onResult: options.onResult } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }));
    results.push(...(await relink(ctx, results, options.signal?.aborted === true)));
    // Bytes unchanged, stat changed (a touch, a checkout): record the stat so the fast path holds next time.
    ledger.transaction(() => {
      for (const file of local.touched) {
        if (ledger.documents.summary(file.path)) ledger.documents.update(file.path, { statSize: file.size, statMtimeMs: file.mtimeMs, statIno: file.ino });
      }
    });
    closeReleases(ledger, observation, results);
    endStaleHolds(ledger, observation);
    const allDone = !options.signal?.aborted && results.every((result) => result.ok);
    if (allDone) for (const intent of interrupted) ledger.intents.abandon(intent.id, 'reconciled by the next run');
    if (!options.signal?.aborted) {
      stateProblems = await publishAndMaintain({ ledger, store, logger, rootId }, { loaded: shared, wrote: results.some((result) => result.ok && result.result !== 'unchanged'), pulled: results.some((result) => result.ok && (result.result === 'pulled' || result.result === 'merged')), migrating });
      // Only when it changes: any write to the meta drops the settled-tree fingerprint.
      if (stateProblems.length === 0 && ledger.meta.get(STATE_PUBLISHED_KEY) !== true && ledger.documents.count() > 0) ledger.meta.set(STATE_PUBLISHED_KEY, true);
    }
    if (allDone && observation.stateSeen !== undefined) {
      // Everything the state said was acted on: it need not be read again until it changes, and this run's own
      // appends are no change to read back (unless another writer's showed up beside them).
      const now = ctx.serverNow();
      const fingerprint = store.wrote ? store.fingerprintAfterWrites(minuteOf(now.getTime())) : observation.stateSeen;
      const seen = fingerprint === undefined ? undefined : stateSeen(fingerprint, now);
      if (seen !== undefined && !isDeepStrictEqual(ledger.meta.get(stateSeenKey(rootId)), seen)) ledger.meta.set(stateSeenKey(rootId), seen);
    }
    if (options.backups && results.some((result) => !result.ok || result.result !== 'unchanged')) {
      const pruned = await pruneBackups(options.stateDir, options.backups);
      if (pruned.files > 0) logger.debug({ ...pruned }, `removed ${pruned.files} backup(s) past the retention`);
    }
    decided = results.map((result) => ({ path: result.path, kind: result.action, ...(result.ok && result.reason ? { reason: result.reason } : {}) }));
    // A run that reconciled interrupted work changed the ledger its plan was made from.
    if (!options.signal?.aborted && interrupted.length === 0) recordSettledTree(ledger, observation, results);
  }

  const links = gate ?? reportLinks();
  // The run's parse trees are ~30× their texts: free them now (what was learnt of them stays, bounded).
  forgetParseTrees();
  return buildReport({
    options,
    planned: shown(decided),
    pending: planned.pending,
    notices: [
      ...planned.notices,
      ...stateNotices(store, observation.sharedUsed === true),
      ...store.foreign().slice(0, 20).map((title) => ({
        path: `${STATE_FOLDER}/${title}`,
        code: 'STATE_FOLDER_SHARED' as const,
        message: `"${oneLine(title)}" is in the ${STATE_FOLDER} folder at the synced root, which is kbsync's own (its state): it is not synced and kbsync leaves it alone. Move it to another folder to sync it.`,
      })),
    ],
    results,
    problems: [...local.problems, ...scan.problems.map((p) => ({ path: p.path, code: p.code, message: p.reason })), ...stateProblems],
    conflictCopies: scan.conflictCopies.map((file) => file.path),
    skipped: scan.skipped,
    links,
    images: imageProblems,
    imageUploads: options.dryRun ? imagesToUpload(images, sent) : images.uploaded,
    resumed: interrupted.length,
    interrupted: options.signal?.aborted === true,
    calls: client.queue.stats().totals.calls - callsBefore,
    endpointCalls: client.queue.stats().endpoints,
    durationMs: Date.now() - started,
  });
}

/**
 * A hold recorded for a file this plan did not hold, nor act on, has ended without an action (a deleted file
 * came back, an emptied one got its text back): it is forgotten, so nothing lists it as waiting any more.
 */
function endStaleHolds(ledger: Ledger, observation: Observation): void {
  const acted = new Set(observation.plan.actions.flatMap((action) => ('record' in action ? [action.record.path] : [])));
  for (const [path, record] of observation.records) {
    if (record.shared || !record.held || record.held.code === 'CONFLICT_OPEN' || acted.has(path)) continue;
    ledger.documents.update(path, { heldCode: null, heldLocalHash: null, heldRemoteTime: null });
  }
}

/**
 * A release (kbsync resolve) is spent once its file was acted on (or needed nothing), and void once its file
 * or document changed (the plan said so): both are removed. One whose action failed, or did not start (a
 * stopped run), stays for the next run.
 */
function closeReleases(ledger: Ledger, observation: Observation, results: readonly ActionResult[]): void {
  if (observation.releases.length === 0) return;
  const honoured = observation.plan.released ?? new Map<string, string>();
  const planned = new Set(observation.plan.actions.map(pathOf));
  const done = new Set(results.filter((result) => result.ok).map((result) => result.path));
  for (const release of observation.releases) {
    const waiting = honoured.has(release.path) && planned.has(release.path) && !done.has(release.path);
    if (!waiting) ledger.releases.done(release.path, release.requestedAt);
  }
}

/**
 * A run that found every file settled and then planned, reported and did nothing records its scan's
 * fingerprint: the next push with the same scan takes that nothing without reading a row (observe/settled-tree.ts).
 * Anything the ledger then records drops it again.
 */
function recordSettledTree(ledger: Ledger, observation: Observation, results: readonly ActionResult[]): void {
  const tree = observation.settledTree;
  if (!tree || tree.recorded || results.length > 0) return;
  const { actions, pending, notices, refusal } = observation.plan;
  if (actions.length > 0 || pending.length > 0 || notices.length > 0 || refusal) return;
  ledger.settledTree.record(tree.fingerprint);
}
