import { EventEmitter } from 'node:events';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { watch as chokidarWatch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import { messageOf } from '../errors.js';
import { IGNORE_FILE_NAME } from './names.js';
import type { FilterOptions } from './path-filter.js';
import { WatchRules } from './watch-rules.js';

export type WatcherEvents = {
  /**
   * Relative POSIX paths (on-disk form) of files or folders that may have changed; '' is the
   * root. Only hints: a path may have been added, edited, moved or removed. Rescan to learn which.
   */
  hint: [paths: string[]];
  /** Watching stopped (watch limit, too many open files, any watcher error): rescan periodically instead. */
  fallback: [reason: string];
};

export type WatcherOptions = FilterOptions & {
  /** Quiet time before a batch of hints is emitted. Default 300 ms. */
  readonly debounceMs?: number;
  /** Longest a hint waits under a steady stream of changes. Default 10× debounceMs, at least 2 s. */
  readonly maxWaitMs?: number;
  /** A file must keep its size this long before it counts as written (slow copies). Default 1000 ms. */
  readonly writeFinishMs?: number;
  /** Poll instead of native events (network shares). */
  readonly usePolling?: boolean;
  /** chokidar's `watch`, replaceable by tests to reach the underlying watcher. */
  readonly watch?: (paths: string, options: ChokidarOptions) => FSWatcher;
};

/** Turns file-system events under the root into debounced rescan hints. */
export class LocalWatcher extends EventEmitter<WatcherEvents> {
  /** Resolves once the initial watch is set up (events before it may be missed). */
  readonly ready: Promise<void>;
  readonly #inner: FSWatcher;
  readonly #rules: WatchRules;
  readonly #debounceMs: number;
  readonly #maxWaitMs: number;
  #pending = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #firstPendingAt = 0;
  #closed = false;

  constructor(root: string, options: WatcherOptions = {}) {
    super();
    const absRoot = path.resolve(root);
    this.#rules = new WatchRules(absRoot, options);
    this.#debounceMs = options.debounceMs ?? 300;
    this.#maxWaitMs = options.maxWaitMs ?? Math.max(this.#debounceMs * 10, 2000);
    const watch = options.watch ?? chokidarWatch;
    this.#inner = watch(absRoot, {
      ignoreInitial: true,
      followSymlinks: false,
      // Unreadable folders are the scanner's to report; they must not stop all watching.
      ignorePermissionErrors: true,
      atomic: true,
      awaitWriteFinish: { stabilityThreshold: options.writeFinishMs ?? 1000, pollInterval: 100 },
      usePolling: options.usePolling ?? false,
      ignored: (abs: string, stats?: Stats) => this.#rules.ignoredForWatch(abs, stats),
    });
    this.ready = new Promise((resolve) => {
      this.#inner.once('ready', () => resolve());
      this.#inner.once('error', () => resolve());
    });
    for (const event of ['add', 'change', 'unlink'] as const) this.#inner.on(event, (abs) => this.#onFile(abs));
    for (const event of ['addDir', 'unlinkDir'] as const) this.#inner.on(event, (abs) => this.#onDir(abs));
    this.#inner.on('error', (error) => this.#fallback(error));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#pending.clear();
    await this.#inner.close();
  }

  #onFile(abs: string): void {
    const rel = this.#rules.relative(abs);
    if (rel === null || rel === '') return;
    if (path.posix.basename(rel) === IGNORE_FILE_NAME) {
      const dir = path.posix.dirname(rel);
      const dirRel = dir === '.' ? '' : dir;
      this.#rules.ignoreFileChanged(dirRel);
      this.#hint(dirRel); // what the folder keeps out may have changed
      return;
    }
    if (!this.#rules.ignoresFile(rel)) this.#hint(rel);
  }

  #onDir(abs: string): void {
    const rel = this.#rules.relative(abs);
    if (rel !== null && rel !== '' && !this.#rules.ignoresDir(rel)) this.#hint(rel);
  }

  #hint(rel: string): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) this.#firstPendingAt = Date.now();
    this.#pending.add(rel);
    clearTimeout(this.#timer);
    const waited = Date.now() - this.#firstPendingAt;
    this.#timer = setTimeout(() => this.#flush(), Math.max(0, Math.min(this.#debounceMs, this.#maxWaitMs - waited)));
  }

  #flush(): void {
    if (this.#closed || this.#pending.size === 0) return;
    const paths = [...this.#pending].sort();
    this.#pending = new Set();
    this.emit('hint', paths);
  }

  #fallback(error: unknown): void {
    if (this.#closed) return;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC'
        ? 'the system limit of file watches is reached (raise fs.inotify.max_user_watches)'
        : code === 'EMFILE'
          ? 'too many open files (raise the open-file limit, ulimit -n)'
          : `the file watcher failed: ${messageOf(error)}`;
    this.#flush();
    this.#closed = true;
    clearTimeout(this.#timer);
    this.emit('fallback', `${why}; switching to periodic rescans`);
    this.#inner.close().catch(() => undefined);
  }
}

export function createWatcher(root: string, options: WatcherOptions = {}): LocalWatcher {
  return new LocalWatcher(root, options);
}
