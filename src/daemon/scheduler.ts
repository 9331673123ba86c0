import { isNotFound, type KbClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import { KbsyncError, SafetyError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import type { ScanCache } from '../local/index.js';
import type { Logger } from '../log.js';
import { runSync, type SyncOptions } from '../sync/engine.js';
import type { ActionResult } from '../sync/run/executor.js';
import type { CallMeter } from './call-meter.js';
import { daemonAdvice, describeFailure, failureKey, folderStateLine, logReport, logResult } from './cycle-log.js';
import { workspaceLabel, workspaceName } from '../sync/observe/observe.js';
import type { SyncReport } from '../sync/views/report.js';
import type { HotDocuments } from './hot-documents.js';
import type { IdleMemory } from './idle-memory.js';
import { eventOf, type Notifier } from './notify.js';
import { planPolling, type PollingPlan } from './polling-policy.js';
import { Timers } from './timers.js';
import { DeleteDelays } from './delete-delays.js';
import { ACTIVITY_KEY, activityJson, type Activity } from './activity.js';
import { GitBranch } from './git-head.js';
import type { WorkGauge } from './work-gauge.js';

/** `sweep`: both sides in full. `local`: the folder in full, the remote only as needed. `probe`: hot documents' modifiedTime. */
type CycleKind = 'sweep' | 'local' | 'probe';

export type SchedulerSettings = {
  /** Options of a two-way run; each cycle sets listRemote itself. */
  readonly sync: SyncOptions;
  readonly watch: Config['watch'];
};

type SchedulerDeps = {
  readonly client: KbClient;
  readonly ledger: Ledger;
  readonly logger: Logger;
  readonly meter: CallMeter;
  readonly gauge: WorkGauge;
  readonly hot: HotDocuments;
  readonly notifier: Notifier;
  /** The last scan and the watcher's hints since: a local cycle re-stats only the hinted files. */
  readonly scans: ScanCache;
  /** Milliseconds until the folder has been quiet this long (0 when it is, or when nothing watches it). */
  readonly untilQuiet: (quietMs: number) => number;
  /** Gives back what a cycle allocated once the daemon is idle again. */
  readonly memory?: IdleMemory;
  /** A cycle failed for a reason no retry mends (stopsTheDaemon): the daemon ends with its exit code. */
  readonly onFatal?: (error: unknown) => void;
};

/**
 * Failures a retry cannot mend: this machine's state key is not the team's, or cannot be read. Retried every
 * few seconds, the daemon would log the same refusal for ever while its unit shows "active"; it stops instead,
 * with the code's exit (2 or 3, which the unit does not restart), and the reason in its log.
 */
const STOPS_THE_DAEMON: ReadonlySet<string> = new Set(['STATE_KEY_NEEDED', 'STATE_KEY_WRONG', 'STATE_KEY_MISSING', 'STATE_KEY_INVALID']);
const stopsTheDaemon = (error: unknown): boolean => error instanceof KbsyncError && STOPS_THE_DAEMON.has(error.code);

const CHANGED = new Set(['pushed', 'pulled', 'merged', 'conflict']);
const MAX_BACKOFF_MS = 5 * 60_000;
/** How often the daemon asks SQLite whether another process (kbsync resolve) wrote the ledger: a counter read, no I/O. */
const RELEASE_POLL_MS = 1000;

/**
 * Runs one cycle at a time and decides what comes next: local hints ask for a local cycle, timers for
 * sweeps, rescans and probes. Requests made while a cycle runs are merged (a sweep covers a local
 * cycle) and served after it, so a burst of edits costs one cycle, never a queue of them.
 */
export class CycleScheduler {
  readonly #deps: SchedulerDeps;
  readonly #timers = new Timers();
  #settings: SchedulerSettings;
  #wanted: 'sweep' | 'local' | undefined;
  #probeWanted = false;
  #running: Promise<void> | undefined;
  #stopped = false;
  #waitingSince: number | undefined;
  #plan: PollingPlan = { sweepEveryMs: null, probeEveryMs: null, callsPerHour: 0 };
  #listingCalls = 1;
  #expectedChecks = 0;
  #lastSweepAt = Date.now();
  #lastProbeAt = Date.now();
  #lastScanAt = Date.now();
  #failures = 0;
  /** The last cycle, as `kbsync doctor` reads it (ACTIVITY_KEY); `#lastFailure` is the code it failed with. */
  #lastCycle: Omit<Activity, 'nextSweepAt' | 'deletesWaiting'> | undefined;
  #lastFailure = 'UNEXPECTED';
  /** Failures said since the last cycle that went through: one outage (a rejected token) is said once, by a file or by a cycle. */
  readonly #said = new Set<string>();
  #problems = new Set<string>();
  /** The folder's state was said (after the first cycle that went through). */
  #greeted = false;
  /** Deletes of files gone here wait (watch.deleteDelayMinutes), longer after a git checkout. */
  readonly #delays: DeleteDelays;
  readonly #branch: GitBranch;
  #idleWaiters: Array<() => void> = [];

  constructor(deps: SchedulerDeps, settings: SchedulerSettings) {
    this.#deps = deps;
    this.#settings = settings;
    this.#delays = new DeleteDelays(settings.watch);
    this.#branch = new GitBranch(settings.sync.root);
  }

  /** Starts with a full sweep (which also reconciles what an interrupted run left open). */
  start(): void {
    this.request('sweep');
    // What the ledger says now is the baseline: a release written before the first poll is a change from it (the
    // first poll would otherwise only take its baseline, and a release made in that first second waited for good).
    if (this.#deps.ledger.isOpen) this.#deps.ledger.changedElsewhere();
    this.#watchReleases();
  }

  /**
   * A person's answer to a hold (kbsync resolve --mine / --theirs) is written beside the daemon into the
   * ledger: once one is there, a sweep carries it out (it lists the service, so the document's time is checked).
   */
  #watchReleases(): void {
    this.#timers.set('releases', RELEASE_POLL_MS, () => {
      const { ledger } = this.#deps;
      if (ledger.isOpen && ledger.changedElsewhere() && ledger.releases.count() > 0) this.request('sweep');
      this.#watchReleases();
    });
  }

  request(kind: CycleKind): void {
    if (this.#stopped) return;
    if (kind === 'probe') this.#probeWanted = true;
    else this.#wanted = kind === 'sweep' || this.#wanted === 'sweep' ? 'sweep' : 'local';
    this.#pump();
  }

  /** New timings, guards or options that need no restart. */
  update(settings: SchedulerSettings): void {
    this.#settings = settings;
    this.#delays.update(settings.watch);
    this.#reschedule();
  }

  /** Takes no more work; resolves when the running cycle (if any) has settled. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.clearAll();
    this.#deps.memory?.stop();
    return this.idle();
  }

  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  get busy(): boolean {
    return this.#running !== undefined;
  }

  #pump(): void {
    if (this.#stopped || this.#running) return;
    const kind: CycleKind | undefined = this.#wanted ?? (this.#probeWanted ? 'probe' : undefined);
    if (!kind) return;
    if (kind !== 'probe') {
      // Wait for a quiet folder (an editor mid-save), but not forever under a steady stream of changes.
      const debounceMs = this.#settings.watch.debounceMs;
      const wait = this.#deps.untilQuiet(debounceMs);
      const waited = Date.now() - (this.#waitingSince ??= Date.now());
      if (wait > 0 && waited < Math.max(10 * debounceMs, 2000)) {
        this.#timers.set('quiet', wait, () => this.#pump());
        return;
      }
      this.#waitingSince = undefined;
      this.#wanted = undefined;
    } else this.#probeWanted = false;
    this.#running = this.#run(kind).finally(() => {
      this.#running = undefined;
      for (const wake of this.#idleWaiters.splice(0)) wake();
      this.#pump();
    });
  }

  async #run(kind: CycleKind): Promise<void> {
    const { meter, logger } = this.#deps;
    const callsBefore = meter.total();
    const listingBefore = meter.endpointCalls('listNodes');
    const probesBefore = meter.endpointCalls('getNode');
    this.#deps.memory?.busy();
    let ok = true;
    try {
      if (kind === 'probe') await this.#probe();
      else await this.#sync(kind);
      this.#failures = 0;
      this.#said.clear();
    } catch (error) {
      ok = false;
      // The hints this cycle took are spent: the retry walks the whole folder.
      this.#deps.scans.invalidate();
      this.#failed(kind, error);
    }
    const now = Date.now();
    const listing = meter.endpointCalls('listNodes') - listingBefore;
    if (kind === 'sweep') {
      this.#lastSweepAt = now;
      if (ok && listing > 0) this.#listingCalls = listing;
      if (ok) this.#deps.hot.resetBaselines();
    }
    if (kind !== 'local') this.#lastProbeAt = now;
    if (kind !== 'probe') this.#lastScanAt = now;
    meter.recordPolling(listing + meter.endpointCalls('getNode') - probesBefore, now);
    this.#lastCycle = { kind, at: now, failed: ok ? null : this.#lastFailure };
    const total = meter.persist();
    logger.debug({ cycle: kind, calls: meter.total() - callsBefore, callsTotal: total, pollingLastHour: meter.pollingLastHour(now) }, `${kind}: ${meter.total() - callsBefore} call(s)`);
    this.#reschedule(ok ? 0 : this.#backoffMs(), ok ? undefined : kind);
    // A probe allocates next to nothing; the next cycle, if one is due at once, cancels this.
    if (kind !== 'probe' && !this.#stopped) this.#deps.memory?.idle();
  }

  async #sync(kind: 'sweep' | 'local'): Promise<void> {
    const { client, ledger, logger, hot, gauge } = this.#deps;
    gauge.cycleStarted();
    const deferDeletes = this.#deleteWaits();
    const report = await runSync(
      { client, ledger, logger },
      {
        ...this.#settings.sync,
        ...(deferDeletes ? { deferDeletes } : {}),
        mode: 'two-way',
        dryRun: false,
        listRemote: kind === 'sweep' ? 'always' : 'if-needed',
        scanner: kind === 'sweep' ? this.#deps.scans.full : this.#deps.scans.hinted,
        onPlanned: (count) => gauge.planned(count),
        onResult: (result: ActionResult) => {
          gauge.done();
          logResult(logger, result, this.#said);
          const event = eventOf(result);
          if (event) this.#deps.notifier.notify(event);
          if (result.ok && CHANGED.has(result.result)) hot.touch(result.path, Date.now());
        },
      },
    ).finally(() => gauge.cycleEnded());
    this.#problems = logReport(logger, kind, report, this.#problems);
    if (kind === 'sweep') this.#expectedChecks = ledger.documents.allSummaries().filter((summary) => summary.recheck).length;
    this.#learnDeletes(report);
    if (!this.#greeted) await this.#greet(report);
  }

  /** Which deletes may go this cycle; a branch switch seen now makes them all wait for the branch to stay. */
  #deleteWaits(): { readonly due: ReadonlySet<string> } | undefined {
    const now = Date.now();
    const switched = this.#branch.switched();
    if (switched) {
      this.#delays.checkout(now);
      const minutes = this.#settings.watch.checkoutDelayMinutes;
      this.#deps.logger.info(
        { from: switched.from, to: switched.to },
        `git checkout: the branch is now ${switched.to} (was ${switched.from}); files it removes keep their documents until it has stayed ${minutes} minute(s) (watch.checkoutDelayMinutes), or until \`kbsync resolve --mine FILE\``,
      );
    }
    return this.#delays.deferring(now) ? { due: this.#delays.due(now) } : undefined;
  }

  /** What this cycle says about waiting deletes (a burst, files back), and the timer for the next one due. */
  #learnDeletes(report: SyncReport): void {
    const { logger } = this.#deps;
    const now = Date.now();
    const news = this.#delays.observe(report.results, now);
    if (news.burst.length > 0) {
      logger.info(
        { files: news.burst.length },
        `${news.burst.length} files are gone at once (a checkout, or a folder moved away?): their documents stay until the folder has stayed so for ${this.#settings.watch.checkoutDelayMinutes} minute(s) (watch.checkoutDelayMinutes), or until \`kbsync resolve --mine FILE\` (\`kbsync resolve\` lists them)`,
      );
    }
    for (const path of news.back) logger.info({ path }, `${path}: back before its delete was sent; its document (and URL) stays`);
    const due = this.#delays.nextDue();
    if (due === undefined) this.#timers.clear('deletes');
    else this.#timers.set('deletes', due - now, () => this.request('local'));
  }

  /** Once, after the first cycle: which workspace (by name), and whether the folder is in step with it. */
  async #greet(report: SyncReport): Promise<void> {
    const { client, ledger, logger } = this.#deps;
    const workspaceId = this.#settings.sync.workspaceId;
    // The name costs one call the first time only; without it, the id says which workspace.
    const name = await workspaceName(client, ledger, workspaceId).catch(() => undefined);
    this.#greeted = true;
    logger.info({ workspaceId, files: ledger.documents.count() }, folderStateLine(workspaceLabel(workspaceId, name), ledger.documents.count(), report));
  }

  /** One getNode per hot document; a change found brings the sweep forward if the budget allows it. */
  async #probe(): Promise<void> {
    const { client, ledger, logger, hot, meter } = this.#deps;
    const paths = hot.paths(Date.now());
    const changed: string[] = [];
    await Promise.all(
      paths.map(async (path) => {
        const summary = ledger.documents.summary(path);
        if (!summary) return hot.forget(path);
        try {
          const node = await client.getNode(summary.treeNodeId);
          if (hot.observe(path, node.modifiedTime)) changed.push(path);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          changed.push(path); // deleted remotely: the sweep decides what that means
        }
      }),
    );
    if (changed.length === 0) {
      logger.debug({ probed: paths.length }, `probed ${paths.length} recently changed document(s): no remote change`);
      return;
    }
    const spent = meter.pollingLastHour(Date.now());
    if (spent + this.#listingCalls <= this.#settings.watch.pollBudgetPerHour) {
      logger.debug({ changed, spent }, 'a probe found remote changes: sweeping now');
      this.request('sweep');
    } else {
      logger.debug({ changed, spent, budget: this.#settings.watch.pollBudgetPerHour }, 'a probe found remote changes; the hourly budget is spent, so the scheduled sweep brings them');
    }
  }

  #failed(kind: CycleKind, error: unknown): void {
    if (this.#stopped) {
      this.#deps.logger.debug({ err: error }, `${kind} cycle ended by the shutdown`);
      return;
    }
    this.#failures += 1;
    const { code, message } = describeFailure(error);
    if (stopsTheDaemon(error) && this.#deps.onFatal) {
      this.#deps.logger.fatal({ cycle: kind, code }, `${kind} cycle refused, nothing was changed; kbsync watch stops (a restart cannot mend this): ${message}`);
      this.#deps.onFatal(error);
      return;
    }
    this.#lastFailure = code;
    const fields = { cycle: kind, code, retryInMs: this.#backoffMs() };
    // The same refusal or outage every few minutes is one problem: say it once, then at debug level.
    const key = failureKey(code, message);
    if (this.#said.has(key)) this.#deps.logger.debug(fields, `${kind} cycle failed again: ${message}`);
    else if (error instanceof SafetyError) this.#deps.logger.error(fields, `${kind} cycle refused, nothing was changed: ${message}${daemonAdvice(code)}`);
    else this.#deps.logger.warn(fields, `${kind} cycle failed: ${message}`);
    this.#said.add(key);
  }

  #backoffMs(): number {
    return Math.min(MAX_BACKOFF_MS, 5000 * 2 ** Math.max(0, this.#failures - 1));
  }

  /** Sets the sweep, rescan and probe timers from the polling plan (and a retry after a failure). */
  #reschedule(retryMs = 0, retry?: CycleKind): void {
    if (this.#stopped) return;
    const { watch } = this.#settings;
    const hotDocs = this.#deps.hot.paths(Date.now()).length;
    this.#plan = planPolling({
      budgetPerHour: watch.pollBudgetPerHour,
      listingCalls: this.#listingCalls,
      expectedChecks: this.#expectedChecks,
      hotDocs,
      fullSweepMinutes: watch.fullSweepMinutes,
    });
    const now = Date.now();
    const { sweepEveryMs, probeEveryMs } = this.#plan;
    this.#deps.logger.debug(
      { ...this.#plan, listingCalls: this.#listingCalls, expectedChecks: this.#expectedChecks, hotDocs, budgetPerHour: watch.pollBudgetPerHour },
      sweepEveryMs === null ? 'remote polling is off (watch.pollBudgetPerHour is 0)' : `next sweep in ${Math.round(Math.max(0, this.#lastSweepAt + sweepEveryMs - now) / 1000)} s`,
    );
    if (sweepEveryMs === null) this.#timers.clear('sweep');
    else this.#timers.set('sweep', Math.max(0, this.#lastSweepAt + sweepEveryMs - now), () => this.request('sweep'));
    if (probeEveryMs === null) this.#timers.clear('probe');
    else this.#timers.set('probe', Math.max(0, this.#lastProbeAt + probeEveryMs - now), () => this.request('probe'));
    // The safety net for whatever the watcher missed. It stays referenced: it keeps the daemon alive.
    this.#timers.set(
      'rescan',
      Math.max(0, this.#lastScanAt + watch.rescanMinutes * 60_000 - now),
      () => {
        this.#deps.scans.invalidate();
        this.request('local');
      },
      { keepAlive: true },
    );
    if (retry) this.#timers.set('retry', retryMs, () => this.request(retry));
    this.#recordActivity(sweepEveryMs === null ? null : Math.max(now, this.#lastSweepAt + sweepEveryMs));
  }

  /** What `kbsync doctor` shows of the daemon: its last cycle and the next sweep, written as a cycle ends. */
  #recordActivity(nextSweepAt: number | null): void {
    const { ledger } = this.#deps;
    if (!this.#lastCycle || !ledger.isOpen) return;
    ledger.meta.set(ACTIVITY_KEY, activityJson({ ...this.#lastCycle, nextSweepAt, deletesWaiting: this.#delays.waiting }));
  }
}
