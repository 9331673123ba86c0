import { loadConfig, type Config } from '../config/index.js';
import { KbsyncError, messageOf } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { DaemonRuntime, type RuntimeContext } from './runtime.js';
import { invocation } from '../invocation.js';
import { takeOutputClosed } from '../output-closed.js';
import { describeFailure } from './cycle-log.js';
import type { StopCause } from './stop-record.js';
import { exitCodeOf } from '../cli/exit-codes.js';

type DaemonOptions = {
  /** --config FILE (else $KBSYNC_CONFIG, else ./sync.config.json), re-read on SIGHUP. */
  readonly config?: string | undefined;
  /** JSON lines even on a terminal (journald, log shippers). */
  readonly jsonLogs?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
};

/**
 * Exit codes of the daemon itself: 0 after a graceful stop (a signal), 130 when a second signal cut the stop short,
 * 1 when its log stream closed (not a stop anyone asked for: a service manager restarts it, with a new stream).
 * An error nothing else handled exits with its code's exit (1 for UNEXPECTED, a bug), like any command it ends.
 */
const DAEMON_EXIT = { stopped: 0, interrupted: 130, outputClosed: 1 } as const;

/** Options that change what is synced, or with what: changing one restarts the runtime. */
const RESTART_KEYS = ['root', 'stateDir', 'workspaceId', 'remoteFolder', 'layout', 'service', 'include', 'exclude'] as const;

/** A stop signal, said as what it is: kbsync never signals itself, so it came from outside, and from whom is worth a guess. */
const SIGNALS: Readonly<Record<'SIGTERM' | 'SIGINT', string>> = {
  SIGTERM: 'SIGTERM, sent from outside kbsync (a service manager stopping it, a logout, `kill`, or a low-memory killer such as earlyoom)',
  SIGINT: 'SIGINT (Ctrl+C, or `kill -INT`)',
};

const LOG_CLOSED: StopCause = {
  name: 'its log closed',
  why: 'its log stream (stderr) closed (a journald restart, or the program reading its output ended), so it could say nothing more; a service manager starts it again',
  clean: false,
  exitCode: DAEMON_EXIT.outputClosed,
};

/** An error nothing else caught (a thrown callback, a rejected promise nobody awaited): said, with its code, as the cause. */
function crashCause(error: unknown, logger: Logger): StopCause {
  const { code, message } = describeFailure(error);
  const exitCode = exitCodeOf(error);
  const what = error instanceof KbsyncError ? 'an error nothing else handled' : 'an unexpected error (a kbsync bug: please report it)';
  logger.fatal({ code, exitCode }, `stopping on ${what}: ${message}`);
  if (error instanceof Error && error.stack) logger.debug({ code, stack: error.stack }, 'where it was thrown');
  const name = error instanceof KbsyncError ? code : 'UNEXPECTED';
  return { name, why: `${name}: ${message}`, clean: false, exitCode };
}

/** A refusal no retry mends (scheduler.ts, stopsTheDaemon): said by the cycle that met it; the daemon stops with its code's exit (2 or 3). */
function refusedCause(error: unknown): StopCause {
  const { code, message } = describeFailure(error);
  return { name: code, why: `${code}: ${message}`, clean: false, exitCode: exitCodeOf(error) };
}

/**
 * `kbsync watch`: runs until something stops it, and every stop says its cause, in its last log line and in the
 * ledger (the next start says the last one's): SIGTERM or SIGINT (a graceful stop, exit 0; a second signal exits at
 * once, 130), an error nothing else handled (a kbsync bug: logged with its code, a graceful stop, its code's exit),
 * a cycle refused for a reason no retry mends (a state key that is not the team's: its code's exit, 2 or 3), or
 * its log stream closing (exit 1). SIGHUP re-reads the configuration. Rejects when the daemon cannot run on: it
 * refused to start, or after a reload neither configuration could be started. It never ends the process itself:
 * the caller (the CLI's entry) does, at once, so that a reply still in flight past the shutdown deadline cannot keep
 * it alive.
 */
export async function runDaemon(options: DaemonOptions = {}): Promise<number> {
  const env = options.env ?? invocation().env;
  const cwd = options.cwd ?? invocation().cwd;
  const load = () => loadConfig({ ...(options.config ? { path: options.config } : {}), cwd, env });
  const first = await load();
  const logger = createLogger({ level: first.config.log.level, ...(options.jsonLogs ? { pretty: false } : {}) });
  for (const warning of first.warnings) logger.warn(warning);
  // A cycle refused for a reason no retry mends (this machine's state key is not the team's): a stop, with its code's exit.
  const onFatal = (error: unknown): void => stopFor(refusedCause(error));
  const contextOf = (config: Config, configPath: string | null): RuntimeContext => ({ config, configPath, logger, env, cwd, onFatal });

  /** The runtime once started (a second signal records the stop in its ledger at once). */
  let live: DaemonRuntime | undefined;
  let stopping: StopCause | undefined;
  // What ends the run before the graceful stop does: a second signal, or a reload that left no runtime.
  let cutShort: { resolve(code: number): void; reject(error: unknown): void } = { resolve: () => undefined, reject: () => undefined };
  const cut = new Promise<number>((resolve, reject) => {
    cutShort = { resolve, reject };
  });
  let stopFor: (cause: StopCause) => void = () => undefined;
  const stopped = new Promise<StopCause>((resolve) => {
    stopFor = (cause) => {
      if (stopping) return;
      stopping = cause;
      resolve(cause);
    };
  });
  // Handlers first: SIGHUP's default action would kill a daemon that is still starting.
  const onSignal = (signal: 'SIGTERM' | 'SIGINT'): void => {
    if (!stopping) return stopFor({ name: signal, why: SIGNALS[signal], clean: true, exitCode: DAEMON_EXIT.stopped });
    logger.warn({ signal }, `${signal} again: exiting now; the next start finishes the interrupted work`);
    live?.record({ name: signal, why: `${stopping.why}; then ${signal} again, so it exited at once, before its stop was done`, clean: stopping.clean, exitCode: DAEMON_EXIT.interrupted });
    cutShort.resolve(DAEMON_EXIT.interrupted);
  };
  // An error that reaches no handler would end the process with a stack trace on stderr and no word in the log.
  const onCrash = (error: unknown): void => {
    const cause = crashCause(error, logger);
    if (!stopping) return stopFor(cause);
    // The stop itself failed: leave at once; the intents journal lets the next start finish the work.
    live?.record(cause);
    cutShort.resolve(cause.exitCode);
  };
  const handlers = { SIGTERM: onSignal, SIGINT: onSignal, uncaughtException: onCrash, unhandledRejection: onCrash } as const;
  for (const [event, handler] of Object.entries(handlers)) process.on(event, handler);
  const giveOutputBack = takeOutputClosed(() => stopFor(LOG_CLOSED));

  // Reloads run one after the other, each on the runtime the previous one left.
  let current = DaemonRuntime.start(contextOf(first.config, first.configPath));
  const onHangup = (): void => {
    current = current.then((runtime) => (stopping ? runtime : reload(runtime, load, logger, contextOf)));
    current.then((runtime) => (live = runtime)).catch((error: unknown) => cutShort.reject(error));
  };
  process.on('SIGHUP', onHangup);
  const run = async (): Promise<number> => {
    live = await current; // a refusal to start (already running, bad ledger) ends the command here
    const cause = await stopped;
    const runtime = await current;
    const deadlineMs = runtime.config.watch.shutdownDeadlineMs;
    logger.info({ deadlineMs }, `${cause.name}: finishing the current work (at most ${deadlineMs} ms), then stopping`);
    const result = await runtime.stop(deadlineMs, cause);
    const unfinished = result.finished ? '' : ' (before the current cycle finished; the next start completes it)';
    logger[cause.clean ? 'info' : 'error']({ exitCode: cause.exitCode, ...(result.finished ? {} : { operations: result.operations }) }, `stopped: ${cause.why}${unfinished}`);
    return cause.exitCode;
  };
  try {
    return await Promise.race([run(), cut]);
  } finally {
    process.off('SIGHUP', onHangup);
    for (const [event, handler] of Object.entries(handlers)) process.off(event, handler);
    giveOutputBack();
  }
}

/** Re-reads the config; on error keeps the old one running and says why. */
async function reload(
  runtime: DaemonRuntime,
  load: () => ReturnType<typeof loadConfig>,
  logger: Logger,
  contextOf: (config: Config, configPath: string | null) => RuntimeContext,
): Promise<DaemonRuntime> {
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await load();
  } catch (error) {
    logger.error({ code: (error as { code?: string }).code ?? 'CONFIG_INVALID' }, `SIGHUP: the configuration was not reloaded, the previous one stays in force: ${messageOf(error)}`);
    return runtime;
  }
  for (const warning of loaded.warnings) logger.warn(warning);
  const next = loaded.config;
  logger.level = next.log.level;
  const changed = RESTART_KEYS.filter((key) => JSON.stringify(next[key]) !== JSON.stringify(runtime.config[key]));
  if (changed.length === 0) {
    runtime.update(next);
    logger.info('SIGHUP: configuration reloaded');
    return runtime;
  }
  logger.info({ changed }, `SIGHUP: ${changed.join(', ')} changed; restarting the sync`);
  await runtime.stop(runtime.config.watch.shutdownDeadlineMs, { name: 'SIGHUP', why: `SIGHUP: ${changed.join(', ')} changed, so it restarted on the new configuration`, clean: true, exitCode: DAEMON_EXIT.stopped });
  try {
    return await DaemonRuntime.start(contextOf(next, loaded.configPath));
  } catch (error) {
    logger.error({ code: (error as { code?: string }).code }, `SIGHUP: the new configuration could not be started, going back to the previous one: ${messageOf(error)}`);
    try {
      return await DaemonRuntime.start(contextOf(runtime.config, loaded.configPath));
    } catch (again) {
      logger.fatal({ code: (again as { code?: string }).code }, `the previous configuration could not be started again either; exiting: ${messageOf(again)}`);
      throw again;
    }
  }
}
