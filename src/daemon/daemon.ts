import { loadConfig, type Config } from '../config/index.js';
import { messageOf } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { DaemonRuntime, type RuntimeContext } from './runtime.js';
import { invocation } from '../invocation.js';

type DaemonOptions = {
  /** --config FILE (else $KBSYNC_CONFIG, else ./sync.config.json), re-read on SIGHUP. */
  readonly config?: string | undefined;
  /** JSON lines even on a terminal (journald, log shippers). */
  readonly jsonLogs?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
};

/** Exit codes of the daemon itself: 0 after a graceful stop, 130 when a second signal cut the stop short. */
const DAEMON_EXIT = { stopped: 0, interrupted: 130 } as const;

/** Options that change what is synced, or with what: changing one restarts the runtime. */
const RESTART_KEYS = ['root', 'stateDir', 'workspaceId', 'remoteFolder', 'layout', 'service', 'include', 'exclude'] as const;

/**
 * `kbsync watch`: runs until SIGTERM or SIGINT, then stops gracefully. SIGHUP re-reads the configuration.
 * Resolves with the exit code: 0 once stopped; 130 at once on a second signal, without waiting for the stop
 * under way (the intents journal lets the next start finish the work). Rejects when the daemon cannot run
 * on: it refused to start, or after a reload neither configuration could be started. It never ends the
 * process itself: the caller (the CLI's entry) does, at once, so that a reply still in flight past the
 * shutdown deadline cannot keep it alive.
 */
export async function runDaemon(options: DaemonOptions = {}): Promise<number> {
  const env = options.env ?? invocation().env;
  const cwd = options.cwd ?? invocation().cwd;
  const load = () => loadConfig({ ...(options.config ? { path: options.config } : {}), cwd, env });
  const first = await load();
  const logger = createLogger({ level: first.config.log.level, ...(options.jsonLogs ? { pretty: false } : {}) });
  for (const warning of first.warnings) logger.warn(warning);
  let stopping = false;
  // What ends the run before the graceful stop does: a second signal, a reload that left no runtime, or a
  // cycle refused for a reason no retry mends (its error, with its exit code: the unit shows "failed").
  let cutShort: { resolve(code: number): void; reject(error: unknown): void } = { resolve: () => undefined, reject: () => undefined };
  const cut = new Promise<number>((resolve, reject) => {
    cutShort = { resolve, reject };
  });
  const onFatal = (error: unknown): void => {
    if (stopping) return;
    stopping = true;
    // The cycle that failed ends first; then the watcher and the ledger are closed, as at a graceful stop.
    void current
      .then((runtime) => runtime.stop(runtime.config.watch.shutdownDeadlineMs))
      .catch((stopFailed: unknown) => logger.warn({ err: stopFailed }, 'stopping after the refusal failed'))
      .then(() => cutShort.reject(error));
  };
  const contextOf = (config: Config, configPath: string | null): RuntimeContext => ({ config, configPath, logger, env, cwd, onFatal });
  // Handlers first: SIGHUP's default action would kill a daemon that is still starting.
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const onStop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        logger.warn({ signal }, `${signal} again: exiting now; the next start finishes the interrupted work`);
        cutShort.resolve(DAEMON_EXIT.interrupted);
        return;
      }
      stopping = true;
      resolve(signal);
    };
    process.on('SIGTERM', onStop);
    process.on('SIGINT', onStop);
  });
  // Reloads run one after the other, each on the runtime the previous one left.
  let current = DaemonRuntime.start(contextOf(first.config, first.configPath));
  const onHangup = (): void => {
    current = current.then((runtime) => (stopping ? runtime : reload(runtime, load, logger, contextOf)));
    current.catch((error: unknown) => cutShort.reject(error));
  };
  process.on('SIGHUP', onHangup);
  const run = async (): Promise<number> => {
    await current; // a refusal to start (already running, bad ledger) ends the command here
    const signal = await stopped;
    const runtime = await current;
    const deadlineMs = runtime.config.watch.shutdownDeadlineMs;
    logger.info({ signal, deadlineMs }, `${signal}: finishing the current work (at most ${deadlineMs} ms), then stopping`);
    const result = await runtime.stop(deadlineMs);
    if (result.finished) logger.info('stopped');
    else logger.warn({ operations: result.operations }, 'stopped before the current cycle finished; the next start completes it');
    return DAEMON_EXIT.stopped;
  };
  try {
    return await Promise.race([run(), cut]);
  } finally {
    process.off('SIGHUP', onHangup);
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
  await runtime.stop(runtime.config.watch.shutdownDeadlineMs);
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
