import { EventEmitter } from 'node:events';
import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { systemClock, type DaemonClock } from '../daemon/clock.js';
import { messageOf } from '../errors.js';
import { watchTree, type RawEvent, type TreeWatch } from './dir-watch.js';
import { IGNORE_FILE_NAME, isAlwaysIgnoredDirName, isTransientFileName } from './names.js';
import type { FilterOptions } from './path-filter.js';
import { WatchRules } from './watch-rules.js';
import { isImageFile } from '../images/media-type.js';

type WatcherEvents = {
  /**
   * Relative POSIX paths (on-disk form) of files or folders that may have changed; '' is the
   * root. Only hints: a path may have been added, edited, moved or removed. Rescan to learn which.
   */
  hint: [paths: string[]];
  /** Watching stopped (watch limit, too many open files, any watcher error): rescan periodically instead. */
  fallback: [reason: string];
};

export type { RawEvent, RawListener, TreeWatch } from './dir-watch.js';

export type WatcherOptions = FilterOptions & {
  /** Quiet time before a batch of hints is emitted. Default 300 ms. */
  readonly debounceMs?: number;
  /** Longest a hint waits under a steady stream of changes. Default 10× debounceMs, at least 2 s. */
  readonly maxWaitMs?: number;
  /** Sees every batch of raw events, ignored paths included (the daemon's quiet-folder clock). */
  readonly onRaw?: (events: readonly RawEvent[]) => void;
  readonly watch?: TreeWatch;
  /** The debounce's time: the system's, or a test's, stepped by hand so that no wait depends on the machine's speed. */
  readonly clock?: DaemonClock;
};

type Fingerprint = { readonly size: number; readonly mtimeMs: number } | null;

/**
 * Turns file-system events under the root into debounced rescan hints. A file is hinted once it has
 * been quiet for the debounce and its size and mtime are what they were at its last event: a check that
 * costs one lstat when the file is already stable, where polling for write completion (chokidar's
 * awaitWriteFinish) added a second to every save. A file still being written keeps sending events, and
 * the debounce waits for them; one that changed without a new event yet waits one more debounce.
 */
export class LocalWatcher extends EventEmitter<WatcherEvents> {
  /** Resolves once the initial watch is set up (events before it may be missed). */
  readonly ready: Promise<void>;
  readonly #root: string;
  readonly #rules: WatchRules;
  readonly #debounceMs: number;
  readonly #maxWaitMs: number;
  readonly #onRaw: ((events: readonly RawEvent[]) => void) | undefined;
  readonly #clock: DaemonClock;
  #subscription: { unsubscribe(): Promise<void> } | undefined;
  /** Hinted paths, each with the fingerprint of the file at its last event (null: a folder, or gone). */
  #pending = new Map<string, Fingerprint>();
  /** Cancels the armed debounce. */
  #disarm = (): void => undefined;
  #firstPendingAt = 0;
  #closed = false;

  constructor(root: string, options: WatcherOptions = {}) {
    super();
    const absRoot = path.resolve(root);
    this.#root = absRoot;
    this.#rules = new WatchRules(absRoot, options);
    this.#debounceMs = options.debounceMs ?? 300;
    this.#maxWaitMs = options.maxWaitMs ?? Math.max(this.#debounceMs * 10, 2000);
    this.#onRaw = options.onRaw;
    this.#clock = options.clock ?? systemClock;
    const watch = options.watch ?? watchTree;
    // Never descended into, whatever the rules say later: a dependency tree, a repository's history, kbsync's state.
    const stateDir = this.#rules.stateDirRelative();
    const skipDir = (rel: string): boolean => rel === stateDir || isAlwaysIgnoredDirName(rel.slice(rel.lastIndexOf('/') + 1));
    this.ready = (async () => {
      try {
        this.#subscription = await watch(absRoot, (error, events) => (error ? this.#fallback(error) : this.#onEvents(events)), { skipDir });
        if (this.#closed) await this.#subscription.unsubscribe();
      } catch (error) {
        this.#fallback(error);
      }
    })();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#disarm();
    this.#pending.clear();
    await this.ready;
    await this.#subscription?.unsubscribe().catch(() => undefined);
    this.#subscription = undefined;
  }

  #onEvents(events: readonly RawEvent[]): void {
    if (this.#closed) return;
    this.#onRaw?.(events);
    for (const event of events) {
      const rel = this.#rules.relative(event.path);
      if (rel === null || rel === '') continue;
      if (path.posix.basename(rel) === IGNORE_FILE_NAME) {
        const dir = path.posix.dirname(rel);
        const dirRel = dir === '.' ? '' : dir;
        this.#rules.ignoreFileChanged(dirRel);
        this.#hint(dirRel, null); // what the folder keeps out may have changed
        continue;
      }
      const stat = event.type === 'delete' ? undefined : lstatQuietly(event.path);
      if (stat?.isFile()) {
        // An image is no synced file, but a document showing it is sent again when it changes (src/images).
        if (!this.#rules.ignoresFile(rel) || isImageFile(rel)) this.#hint(rel, { size: stat.size, mtimeMs: stat.mtimeMs });
      } else if (stat?.isDirectory()) {
        if (!this.#rules.ignoresDir(rel)) this.#hint(rel, null);
      } else if (stat === undefined) {
        // Gone, so of unknown kind: a synced file, or a folder. An editor's temp file renamed away is
        // neither; a folder with such a name is still found by its files' own events and by every scan.
        const name = rel.slice(rel.lastIndexOf('/') + 1);
        if (!this.#rules.ignoresFile(rel) || (!isTransientFileName(name) && !this.#rules.ignoresDir(rel))) this.#hint(rel, null);
      }
      // Anything else (a symlink, a pipe) is the scanner's to report at the next sweep.
    }
  }

  #hint(rel: string, fingerprint: Fingerprint): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) this.#firstPendingAt = this.#clock.now();
    this.#pending.set(rel, fingerprint);
    this.#arm();
  }

  #arm(): void {
    this.#disarm();
    const waited = this.#clock.now() - this.#firstPendingAt;
    // Kept alive: a hint on its way is work the process has to do.
    this.#disarm = this.#clock.after(Math.max(0, Math.min(this.#debounceMs, this.#maxWaitMs - waited)), () => this.#flush(), true);
  }

  #flush(): void {
    if (this.#closed || this.#pending.size === 0) return;
    const overdue = this.#clock.now() - this.#firstPendingAt >= this.#maxWaitMs;
    if (!overdue) {
      let moved = false;
      for (const [rel, before] of this.#pending) {
        if (before === null) continue;
        const now = lstatQuietly(path.join(this.#root, rel));
        const after: Fingerprint = now?.isFile() ? { size: now.size, mtimeMs: now.mtimeMs } : null;
        if (after === null || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
          // Written since its last event (the event is on its way): not finished, wait once more.
          this.#pending.set(rel, after);
          moved = true;
        }
      }
      if (moved) return this.#arm();
    }
    const paths = [...this.#pending.keys()].sort();
    this.#pending = new Map();
    this.emit('hint', paths);
  }

  #fallback(error: unknown): void {
    if (this.#closed) return;
    const code = errorCodeOf(error);
    const why =
      code === 'ENOSPC'
        ? 'the system limit of file watches is reached (raise fs.inotify.max_user_watches)'
        : code === 'EMFILE'
          ? 'too many open files (raise the open-file limit, ulimit -n)'
          : `the file watcher failed: ${messageOf(error)}`;
    const pending = [...this.#pending.keys()].sort();
    this.#pending = new Map();
    if (pending.length > 0) this.emit('hint', pending);
    this.#closed = true;
    this.#disarm();
    this.emit('fallback', `${why}; switching to periodic rescans`);
    void this.#subscription?.unsubscribe().catch(() => undefined);
  }
}

/** A limit reached may come as a code (fs.watch) or only in a message (an injected or wrapped error). */
function errorCodeOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code) return code;
  const message = messageOf(error);
  if (/ENOSPC|No space left on device|max_user_watches/i.test(message)) return 'ENOSPC';
  if (/EMFILE|Too many open files/i.test(message)) return 'EMFILE';
  return undefined;
}

function lstatQuietly(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined; // gone already: a deletion, or a temp file renamed away
  }
}

export function createWatcher(root: string, options: WatcherOptions = {}): LocalWatcher {
  return new LocalWatcher(root, options);
}
