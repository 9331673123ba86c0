import { dirname } from 'node:path';
import type { KbClient } from '../api/index.js';
import { createServiceClient, openStateLedger, syncOptionsOf } from '../setup/index.js';
import type { Config, TokenSource } from '../config/index.js';
import { KbsyncError, messageOf } from '../errors.js';
import { describeFailure } from './cycle-log.js';
import type { Ledger } from '../ledger/index.js';
import { ScanCache } from '../local/index.js';
import type { Logger } from '../log.js';
import { CallMeter } from './call-meter.js';
import { CallBudget } from '../budget/call-budget.js';
import { WorkGauge } from './work-gauge.js';
import { HotDocuments } from './hot-documents.js';
import { IdleMemory } from './idle-memory.js';
import { LocalSource } from './local-source.js';
import { Notifier } from './notify.js';
import { CycleScheduler, type SchedulerSettings } from './scheduler.js';
import { createStateKeySource, type StateKeySource } from '../setup/state-key.js';
import { recordStart, recordStop, type StopCause } from './stop-record.js';

export type RuntimeContext = {
  readonly config: Config;
  /** The config file, for resolving a token file relative to it; null when the environment alone configured kbsync. */
  readonly configPath: string | null;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** A cycle failed for a reason no retry mends (scheduler.ts, stopsTheDaemon): the daemon ends with it. */
  readonly onFatal?: (error: unknown) => void;
};

type StopResult = { readonly finished: boolean; readonly operations: number };

/**
 * Everything one configuration runs on, held open for the daemon's lifetime: the client (and its
 * queue), the ledger (and its lock), the watcher and the scheduler. A reload that changes what is
 * synced replaces the whole runtime; one that only changes timings updates it in place.
 */
export class DaemonRuntime {
  #config: Config;
  readonly #client: KbClient;
  readonly #ledger: Ledger;
  readonly #local: LocalSource;
  readonly #scheduler: CycleScheduler;
  readonly #meter: CallMeter;
  readonly #stateKey: StateKeySource;
  readonly #logger: Logger;

  private constructor(config: Config, client: KbClient, ledger: Ledger, local: LocalSource, scheduler: CycleScheduler, meter: CallMeter, stateKey: StateKeySource, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#stateKey = stateKey;
    this.#client = client;
    this.#ledger = ledger;
    this.#local = local;
    this.#scheduler = scheduler;
    this.#meter = meter;
  }

  /** Opens the ledger (refusing if another kbsync holds it), starts watching, then the first full cycle. */
  static async start(context: RuntimeContext): Promise<DaemonRuntime> {
    const { config, logger } = context;
    const configDir = context.configPath ? dirname(context.configPath) : context.cwd;
    const { client, token } = createServiceClient(config.service, { env: context.env, cwd: configDir, logger });
    await tokenThere(token);
    const stateKey = createStateKeySource(config.state.key, { env: context.env, cwd: configDir, workspaceId: config.workspaceId });
    // Read now: a key that cannot be read stops the start, not the first cycle.
    await stateKey.get();
    const ledger: Ledger = openStateLedger(config, logger, { command: 'watch' });
    ledger.keepForLongRun();
    try {
      recordStart(ledger, logger, Date.now());
      const meter = new CallMeter(client, ledger);
      const gauge = new WorkGauge(ledger);
      const hot = new HotDocuments();
      // The scheduler asks the watcher whether the folder is quiet; the watcher wakes the scheduler.
      const watching: { source?: LocalSource } = {};
      const scans = new ScanCache();
      const scheduler = new CycleScheduler(
        {
          client,
          ledger,
          logger,
          meter,
          gauge,
          hot,
          scans,
          notifier: new Notifier(config.notify, logger, context.env),
          memory: new IdleMemory(),
          untilQuiet: (quietMs) => watching.source?.untilQuiet(quietMs) ?? 0,
          ...(context.onFatal ? { onFatal: context.onFatal } : {}),
        },
        settingsOf(config, stateKey),
      );
      const local = new LocalSource({
        root: config.root,
        stateDir: config.stateDir,
        include: config.include,
        exclude: config.exclude,
        debounceMs: config.watch.debounceMs,
        rescanMinutes: config.watch.rescanMinutes,
        logger,
        env: context.env,
        onHint: (paths) => {
          logger.debug({ paths: paths.slice(0, 20), count: paths.length }, 'local change hint');
          gauge.hinted(paths);
          scans.hint(paths);
          scheduler.request('local');
        },
      });
      watching.source = local;
      // Watch first, so an edit made during the first cycle is not missed.
      await local.ready();
      scheduler.start();
      logger.info({ root: config.root, workspaceId: config.workspaceId }, `watching ${config.root}`);
      return new DaemonRuntime(config, client, ledger, local, scheduler, meter, stateKey, logger);
    } catch (error) {
      ledger.close();
      throw error;
    }
  }

  get config(): Config {
    return this.#config;
  }

  /** New timings, guards or link rewriting: no restart needed. */
  update(config: Config): void {
    this.#config = config;
    this.#scheduler.update(settingsOf(config, this.#stateKey));
  }

  /**
   * Stops taking work, lets the running cycle finish within `deadlineMs`, then refuses what its queue
   * has not sent yet (an interrupted operation stays in the intents journal for the next start), records
   * why it stopped, and closes the watcher and the ledger (checkpointed).
   */
  async stop(deadlineMs: number, cause: StopCause): Promise<StopResult> {
    const settled = this.#scheduler.stop();
    await this.#local.close();
    let finished = await within(settled, deadlineMs);
    const drained = await this.#client.queue.drain({ deadlineMs: 0 });
    if (!finished) finished = await within(settled, 2000); // its steps settle once the queue refuses them
    this.#write('the calls spent', () => this.#meter.persist(new CallBudget(this.#ledger, this.#config.service.callsPerMonth)));
    this.record(cause);
    this.#ledger.close();
    return { finished, operations: drained.operations };
  }

  /** Keeps why the daemon stops in the ledger, for the next start to say (also when the process ends at once). */
  record(cause: StopCause): void {
    if (this.#ledger.isOpen) this.#write('why it stopped', () => recordStop(this.#ledger, cause, Date.now()));
  }

  /** A last record that fails (a full disk) is said, and never keeps the daemon from stopping. */
  #write(what: string, write: () => unknown): void {
    try {
      write();
    } catch (error) {
      this.#logger.warn({ code: describeFailure(error).code }, `could not record ${what} in the ledger while stopping: ${messageOf(error)}`);
    }
  }
}

/**
 * A token that is not there (an unset variable, a missing or empty file) will not come by waiting: the daemon
 * refuses to start (exit 2) rather than run and fail every cycle, so a service manager shows it failed, with
 * the reason. A token command that fails may work later (a vault back online): the cycles say it, and retry.
 */
async function tokenThere(token: TokenSource): Promise<void> {
  try {
    await token.get();
  } catch (error) {
    if (error instanceof KbsyncError && (error.code === 'TOKEN_MISSING' || error.code === 'TOKEN_INVALID')) throw error;
  }
}

function settingsOf(config: Config, stateKey: StateKeySource): SchedulerSettings {
  return { sync: { ...syncOptionsOf(config, { mode: 'two-way', dryRun: false, force: false }), stateKey }, watch: config.watch, callsPerMonth: config.service.callsPerMonth };
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeUp]);
  } finally {
    clearTimeout(timer);
  }
}
