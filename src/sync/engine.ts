import { isDeepStrictEqual } from 'node:util';
import { pruneBackups } from '../local/index.js';
import type { Ledger } from '../ledger/index.js';
import type { SyncContext } from './context.js';
import { decideAll, shown, type Previewed } from './decisions.js';
import { assessIO, execute, type ActionResult } from './executor.js';
import { retire } from './act/removals.js';
import { minuteOf } from './minutes.js';
import { stateSeen, stateSeenKey } from './state-seen.js';
import { pathOf } from './decide/placement.js';
import { STATE_FOLDER } from '../remote-state/store.js';
import { forgetParseTrees } from '../markdown/parse.js';
import { markPublished, neverPublished, publishAndMaintain, stateNotices } from './state-run.js';
import { StateJournal } from './state-journal.js';
import { announceAhead } from './announce.js';
import type { LocalProblem } from './observe/observe-local.js';
import type { Observation } from './observe/observe.js';
import { buildReport, type SyncReport } from './report.js';
import type { LinkProblem } from '../links/index.js';
import { DEFAULT_SITE, linkReport, pushRewriter, relink, runLinker } from './run-links.js';
import { imageReport, imagesToUpload, prepareImages, sentBodies } from './run-images.js';
import { oneLine } from '../printable.js';
import { startRun, type SyncDeps, type SyncOptions } from './run/inputs.js';
import { observe } from './run/observe-phase.js';

export type { SyncDeps, SyncOptions } from './run/inputs.js';

/**
 * One sync cycle. Data flows one way: observe both sides, decide in the pure planner against the
 * ledger, act through the queue, record each result with its intent. Intents left open by an
 * interrupted run are reconciled by this very cycle: it observes both sides afresh, and the steps
 * recognise work already done (a body already there, a document already created) instead of repeating it.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncReport> {
  const run = startRun(deps, options);
  const { client, ledger, logger } = deps;
  const observed = await observe(run);
  const { observation, interrupted, rootId, store, migrating, images } = observed;
  const { scan, local, remote, plan: planned } = observation;

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
    shared: observed.shared()?.state,
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
      stateProblems = await publishAndMaintain({ ledger, store, logger, rootId }, { loaded: observed.shared(), wrote: results.some((result) => result.ok && result.result !== 'unchanged'), pulled: results.some((result) => result.ok && (result.result === 'pulled' || result.result === 'merged')), migrating });
      // Only when it changes: any write to the meta drops the settled-tree fingerprint.
      if (stateProblems.length === 0 && neverPublished(ledger)) markPublished(ledger);
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
    calls: client.queue.stats().totals.calls - run.callsBefore,
    endpointCalls: client.queue.stats().endpoints,
    durationMs: Date.now() - run.started,
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
