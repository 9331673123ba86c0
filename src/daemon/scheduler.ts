import { isNotFound, type KbClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import { KbsyncError, SafetyError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import type { ScanCache } from '../local/index.js';
import type { Logger } from '../log.js';
import { runSync, type SyncOptions } from '../sync/engine.js';
import { BaselineMemo } from '../sync/observe/local-baseline.js';
import type { ActionResult } from '../sync/run/executor.js';
import type { CallMeter } from './call-meter.js';
import { CallBudget } from '../budget/call-budget.js';
import { daemonAdvice, describeFailure, failureKey, folderStateLine, logCycleDone, logReport, logResult } from './cycle-log.js';
import { workspaceLabel, workspaceName } from '../sync/observe/observe.js';
import type { SyncReport } from '../sync/views/report.js';
import type { HotDocuments } from './hot-documents.js';
import type { IdleMemory } from './idle-memory.js';
import { eventOf, type Notifier } from './notify.js';
import { planPolling, type PollingPlan } from './polling-policy.js';
import { Timers } from './timers.js';
import { systemClock, type DaemonClock } from './clock.js';
import { RemovalWaits } from './removal-waits.js';
import { UnrecordedSaid } from './unrecorded-said.js';
import { LedgerSaidOfFiles } from './said-of-files.js';
import { ACTIVITY_KEY, activityJson, readWaits, WAITS_KEY, waitsJson, type Activity, type WaitRecord } from './activity.js';
import type { WorkGauge } from './work-gauge.js';

/** `sweep`: both sides in full. `local`: the folder in full, the remote only as needed. `probe`: hot documents' modifiedTime. */
type CycleKind = 'sweep' | 'local' | 'probe';

export type SchedulerSettings = {
  /** Options of a two-way run; each cycle sets listRemote itself. */
  readonly sync: SyncOptions;
  readonly watch: Config['watch'];
  /** The month's call budget (service.callsPerMonth; 0: none). */
  readonly callsPerMonth: number;
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
  /** The time, and the wake-ups (the system's unless a test runs the daemon in virtual time). */
  readonly clock?: DaemonClock;
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
const HOUR_MS = 3_600_000;
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
  /** What the last local cycle worked out per file: the next one works out again only what changed. */
  readonly #baselines = new BaselineMemo();
  readonly #clock: DaemonClock;
  readonly #timers: Timers;
  #settings: SchedulerSettings;
  #wanted: 'sweep' | 'local' | undefined;
  #probeWanted = false;
  #running: Promise<void> | undefined;
  #stopped = false;
  #waitingSince: number | undefined;
  #plan: PollingPlan = { sweepEveryMs: null, probeEveryMs: null, callsPerHour: 0 };
  #listingCalls = 1;
  #expectedChecks = 0;
  #lastSweepAt: number;
  #lastProbeAt: number;
  #lastScanAt: number;
  #failures = 0;
  /** The last cycle, as `kbsync doctor` reads it (ACTIVITY_KEY); `#lastFailure` is the code it failed with. */
  #lastCycle: Omit<Activity, 'nextSweepAt' | 'deletesWaiting'> | undefined;
  #lastFailure = 'UNEXPECTED';
  /** Failures said since the last cycle that went through: one outage (a rejected token) is said once, by a file or by a cycle. */
  readonly #said = new Set<string>();
  /** The holds and waits nothing records, said once while they stand (restarts included: unrecorded-said.ts). */
  readonly #unrecorded: UnrecordedSaid;
  #problems = new Set<string>();
  /** The broken links and unpublished images said, per file (each said once while it stands, restarts included: cycle-log.ts). */
  readonly #saidOfSentFiles: LedgerSaidOfFiles;
  /** The folder's state was said (after the first cycle that went through). */
  #greeted = false;
  /** The month's call budget was found spent, and said so: cycles wait for it. */
  #waitingForBudget = false;
  /** Deletes of files gone here wait (watch.deleteDelayMinutes); what a git checkout brings waits for the branch to stay. */
  readonly #waits: RemovalWaits;
  /** The waits as last written for `kbsync status` and `kbsync resolve`. */
  #waitsWritten = '';
  #idleWaiters: Array<() => void> = [];

  constructor(deps: SchedulerDeps, settings: SchedulerSettings) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#timers = new Timers(this.#clock);
    this.#lastSweepAt = this.#lastProbeAt = this.#lastScanAt = this.#clock.now();
    this.#settings = settings;
    this.#saidOfSentFiles = new LedgerSaidOfFiles(deps.ledger);
    this.#unrecorded = new UnrecordedSaid(deps.ledger);
    this.#waits = new RemovalWaits(settings.sync.root, settings.watch, deps.logger, this.#stillWaiting(), this.#clock.now());
  }

  /**
   * What the last daemon here kept waiting and still waits: its hold is still on the record (a `kbsync sync` run
   * meanwhile sent the delete, or found the file back, and ended it).
   */
  #stillWaiting(): WaitRecord[] {
    const { ledger } = this.#deps;
    if (!ledger.isOpen) return [];
    return [...readWaits(ledger.meta.get(WAITS_KEY)).values()].filter((wait) => ledger.documents.summary(wait.path)?.heldCode === (wait.kind === 'move' ? 'MOVE_WAITING' : 'DELETE_WAITING'));
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
      if (this.#bookkeeping('a look for answers from kbsync resolve', () => ledger.isOpen && ledger.changedElsewhere() && ledger.releases.count() > 0)) this.request('sweep');
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
    this.#waits.update(settings.watch);
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
    if (!kind || this.#budgetSpent(kind)) return;
    if (kind !== 'probe') {
      // Wait for a quiet folder (an editor mid-save), but not forever under a steady stream of changes.
      const debounceMs = this.#settings.watch.debounceMs;
      const wait = this.#deps.untilQuiet(debounceMs);
      const waited = this.#clock.now() - (this.#waitingSince ??= this.#clock.now());
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
    let report: SyncReport | undefined;
    try {
      if (kind === 'probe') await this.#probe();
      else report = await this.#sync(kind);
      this.#failures = 0;
      // An outage is over once the service answered; a cycle that asked it nothing (a local cycle of a settled
      // folder) tells nothing of it, and the next sweep's same outage, said again, was no news (issue 44).
      if (meter.total() > callsBefore) this.#said.clear();
    } catch (error) {
      ok = false;
      // The hints this cycle took are spent: the retry walks the whole folder.
      this.#deps.scans.invalidate();
      this.#failed(kind, error);
    }
    const now = this.#clock.now();
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
    const { total, notice } = this.#bookkeeping('the calls spent', () => meter.persist(this.#budget())) ?? {};
    logger.debug({ cycle: kind, calls: meter.total() - callsBefore, callsTotal: total, pollingLastHour: meter.pollingLastHour(now) }, `${kind}: ${meter.total() - callsBefore} call(s)`);
    if (notice) logger.warn({ code: notice.spent ? 'BUDGET_SPENT' : 'BUDGET_LOW', share: notice.share }, notice.message);
    this.#reschedule(ok ? 0 : this.#backoffMs(), ok ? undefined : kind);
    // Said once the cycle is recorded (#reschedule): `kbsync doctor`, asked on that line, finds the cycle it tells of.
    if (report && !this.#greeted) await this.#greet(report);
    // A probe allocates next to nothing; the next cycle, if one is due at once, cancels this.
    if (kind !== 'probe' && !this.#stopped) this.#deps.memory?.idle();
  }

  async #sync(kind: 'sweep' | 'local'): Promise<SyncReport> {
    const { client, ledger, logger, hot, gauge } = this.#deps;
    gauge.cycleStarted();
    const leave = this.#waits.before(this.#clock.now());
    const report = await runSync(
      { client, ledger, logger },
      {
        ...this.#settings.sync,
        ...(leave.deferDeletes ? { deferDeletes: leave.deferDeletes } : {}),
        mode: leave.mode,
        dryRun: false,
        listRemote: kind === 'sweep' ? 'always' : 'if-needed',
        scanner: kind === 'sweep' ? this.#deps.scans.full : this.#deps.scans.hinted,
        baselines: this.#baselines,
        onPlanned: (count) => gauge.planned(count),
        onResult: (done: ActionResult) => {
          gauge.done();
          const result = this.#unrecorded.mark(done);
          logResult(logger, result, this.#said);
          const event = eventOf(result);
          if (event) this.#deps.notifier.notify(event);
          if (result.ok && CHANGED.has(result.result)) hot.touch(result.path, this.#clock.now());
        },
      },
    ).finally(() => gauge.cycleEnded());
    // On a branch it does not publish from, what waits to be published is the branch's own: one line said it.
    this.#problems = logReport(logger, kind, report, this.#problems, leave.mode === 'pull' ? 'debug' : 'info', this.#saidOfSentFiles);
    this.#bookkeeping('what was said of broken links and images', () => this.#saidOfSentFiles.keep());
    if (kind === 'sweep') {
      this.#expectedChecks = ledger.documents.allSummaries().filter((summary) => summary.recheck).length;
      this.#unrecorded.swept(report.results);
    }
    this.#bookkeeping('what was said of holds nothing else records', () => this.#unrecorded.keep());
    logCycleDone(logger, kind, report);
    this.#waits.after(leave, report.results, this.#clock.now());
    // Nothing is removed on a branch the daemon does not publish from: a wait due then is for the switch back.
    const due = leave.mode === 'two-way' ? this.#waits.nextDue() : undefined;
    if (due === undefined) this.#timers.clear('deletes');
    else this.#timers.set('deletes', due - this.#clock.now(), () => this.request('local'));
    return report;
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

  /** The month's call budget, as the settings state it now (a reload may change it). */
  #budget(): CallBudget {
    return new CallBudget(this.#deps.ledger, this.#settings.callsPerMonth, () => new Date(this.#clock.now()));
  }

  /**
   * The month's call budget is spent: no cycle runs (edits wait in the files, nothing is lost) until it renews or
   * a reload raises it. Said once; looked at again within the hour (a timer cannot wait a month).
   */
  #budgetSpent(kind: CycleKind): boolean {
    if (!this.#deps.ledger.isOpen) return false;
    const budget = this.#budget();
    if (!budget.spent) {
      this.#waitingForBudget = false;
      return false;
    }
    if (!this.#waitingForBudget) {
      this.#waitingForBudget = true;
      this.#deps.logger.warn({ code: 'BUDGET_SPENT', renewsAt: budget.renewsAt().toISOString() }, `${budget.spentMessage()} Edits saved meanwhile wait in the files and are sent then (or raise it, and reload: SIGHUP).`);
    } else this.#deps.logger.debug({ cycle: kind }, `a ${kind} cycle waits for the month's call budget`);
    this.#timers.set('budget', Math.min(HOUR_MS, Math.max(1000, budget.renewsAt().getTime() - this.#clock.now())), () => this.#pump());
    return true;
  }

  /** One getNode per hot document; a change found brings the sweep forward if the budget allows it. */
  async #probe(): Promise<void> {
    const { client, ledger, logger, hot, meter } = this.#deps;
    const paths = hot.paths(this.#clock.now());
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
    const spent = meter.pollingLastHour(this.#clock.now());
    const perHour = this.#budget().pollingPerHour(this.#settings.watch.pollBudgetPerHour);
    if (spent + this.#listingCalls <= perHour) {
      logger.debug({ changed, spent }, 'a probe found remote changes: sweeping now');
      this.request('sweep');
    } else {
      logger.debug({ changed, spent, budget: perHour }, 'a probe found remote changes; the hourly budget is spent, so the scheduled sweep brings them');
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
    const hotDocs = this.#deps.hot.paths(this.#clock.now()).length;
    // The month's budget, when one is stated, may leave polling less than watch.pollBudgetPerHour.
    const budgetPerHour = this.#deps.ledger.isOpen ? this.#budget().pollingPerHour(watch.pollBudgetPerHour) : watch.pollBudgetPerHour;
    this.#plan = planPolling({
      budgetPerHour,
      listingCalls: this.#listingCalls,
      expectedChecks: this.#expectedChecks,
      hotDocs,
      fullSweepMinutes: watch.fullSweepMinutes,
    });
    const now = this.#clock.now();
    const { sweepEveryMs, probeEveryMs } = this.#plan;
    this.#deps.logger.debug(
      { ...this.#plan, listingCalls: this.#listingCalls, expectedChecks: this.#expectedChecks, hotDocs, budgetPerHour },
      sweepEveryMs === null
        ? `remote polling is off (${watch.pollBudgetPerHour === 0 ? 'watch.pollBudgetPerHour is 0' : "what is left of the month's call budget is kept for your edits"})`
        : `next sweep in ${Math.round(Math.max(0, this.#lastSweepAt + sweepEveryMs - now) / 1000)} s`,
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
    const cycle = this.#lastCycle;
    if (!cycle || !ledger.isOpen) return;
    const waits = this.#waits.list();
    this.#bookkeeping('what the daemon did', () => ledger.meta.set(ACTIVITY_KEY, activityJson({ ...cycle, nextSweepAt, deletesWaiting: waits.length })));
    // Written when they change, not every cycle: each write is a durable commit.
    const written = JSON.stringify(waitsJson(waits));
    const wrote = written !== this.#waitsWritten && this.#bookkeeping('the deletes and moves that wait', () => {
      ledger.meta.set(WAITS_KEY, waitsJson(waits));
      return true;
    });
    if (wrote) this.#waitsWritten = written;
  }

  /**
   * A ledger write that only records what the daemon did (its calls, its last cycle for `kbsync doctor`, its waits
   * for `kbsync status`), after the cycle's own work was recorded. One that fails (a full disk, a write lock held
   * past the busy timeout) is said once, and the daemon goes on: the next cycle writes it again. Thrown, it was an
   * unhandled rejection that ended the daemon.
   */
  #bookkeeping<T>(what: string, write: () => T): T | undefined {
    try {
      return write();
    } catch (error) {
      const { code, message } = describeFailure(error);
      const key = failureKey(code, message);
      if (!this.#said.has(key)) this.#deps.logger.warn({ code }, `could not record ${what} in the ledger (${message}); syncing goes on, and the next cycle records it again`);
      this.#said.add(key);
      return undefined;
    }
  }
}
