import { createWatcher, type LocalWatcher, type RawListener, type TreeWatch } from '../local/watcher.js';
import type { Logger } from '../log.js';
import { invocation } from '../invocation.js';

/**
 * Test hook, inert unless set: `KBSYNC_TEST_WATCHER_ERROR=ENOSPC` makes the file watcher fail with that
 * code once it is ready, so tests reach the fallback to periodic rescans without exhausting inotify.
 */
const WATCHER_ERROR_HOOK = 'KBSYNC_TEST_WATCHER_ERROR';

type LocalSourceOptions = {
  readonly root: string;
  readonly stateDir: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly debounceMs: number;
  /** Only for the fallback warning: how often the rescans come. */
  readonly rescanMinutes: number;
  readonly logger: Logger;
  readonly onHint: (paths: readonly string[]) => void;
  readonly env?: NodeJS.ProcessEnv;
};

/**
 * The daemon's view of local activity: the watcher's debounced hints, the time of the last raw event
 * (a cycle waits for a quiet folder, so an editor's unlink-then-write save is never caught half way and
 * read as a deletion), and the switch to periodic rescans, announced once, when the watcher fails.
 */
export class LocalSource {
  readonly #watcher: LocalWatcher;
  #lastEventAt = 0;
  #failed = false;

  constructor(options: LocalSourceOptions) {
    const env = options.env ?? invocation().env;
    this.#watcher = createWatcher(options.root, {
      stateDir: options.stateDir,
      include: options.include,
      exclude: options.exclude,
      debounceMs: options.debounceMs,
      onRaw: () => (this.#lastEventAt = Date.now()),
      ...(env[WATCHER_ERROR_HOOK] ? { watch: failingWatch(env[WATCHER_ERROR_HOOK]) } : {}),
    });
    this.#watcher.on('hint', (paths) => options.onHint(paths));
    this.#watcher.on('fallback', (reason) => {
      this.#failed = true;
      options.logger.warn({ code: 'WATCHER_FAILED' }, `file watching stopped: ${reason} (every ${options.rescanMinutes} min, watch.rescanMinutes)`);
    });
  }

  ready(): Promise<void> {
    return this.#watcher.ready;
  }

  /** True when the watcher failed and only rescans find local changes. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Milliseconds until the folder has been quiet for `quietMs` (0: quiet now). */
  untilQuiet(quietMs: number, now = Date.now()): number {
    if (this.#failed) return 0;
    return Math.max(0, this.#lastEventAt + quietMs - now);
  }

  close(): Promise<void> {
    return this.#watcher.close();
  }
}

/** The test hook's watcher: watches nothing, and reports `code` as soon as it is set up. */
function failingWatch(code: string): TreeWatch {
  return async (_root: string, listener: RawListener) => {
    setImmediate(() => listener(Object.assign(new Error(`injected watcher failure ${code}`), { code }), []));
    return { unsubscribe: async () => undefined };
  };
}
