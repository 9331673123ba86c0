import type { ActionResult } from '../sync/run/executor.js';

/** So many files gone in one cycle is a checkout (or a folder moved away), not deletions one by one. */
export const BURST = 5;

type DelaySettings = { readonly deleteDelayMinutes: number; readonly checkoutDelayMinutes: number };

/** What the daemon says about a cycle's waiting deletes (each at most once). */
type DelayNews = {
  /** Files that came back before their delete was sent: their documents stay. */
  readonly back: readonly string[];
  /** Files gone in this cycle's burst (a checkout-like change), when it was one. */
  readonly burst: readonly string[];
};

/**
 * The daemon's deletes that wait (design: an edit beats a delete, and a file that comes back at its path keeps
 * its document and URL). A file deleted here waits `deleteDelayMinutes` from when a cycle first found it gone;
 * after a checkout (HEAD moved, or many files gone at once), every waiting delete also waits until the branch
 * has stayed for `checkoutDelayMinutes`. Kept in memory: after a restart the wait starts again, the safe side.
 */
export class DeleteDelays {
  #settings: DelaySettings;
  readonly #since = new Map<string, number>();
  #checkoutAt: number | undefined;

  constructor(settings: DelaySettings) {
    this.#settings = settings;
  }

  update(settings: DelaySettings): void {
    this.#settings = settings;
  }

  /** A checkout was seen (HEAD changed): deletes wait for the branch to stay. */
  checkout(now: number): void {
    this.#checkoutAt = now;
  }

  /** Whether deletes are deferred at all: with no delay and no checkout under way they go at once, as in a one-shot sync. */
  deferring(now: number): boolean {
    return this.#settings.deleteDelayMinutes > 0 || this.#checkoutWaits(now);
  }

  /** The waiting deletes whose time has come. */
  due(now: number): Set<string> {
    const due = new Set<string>();
    if (this.#checkoutWaits(now)) return due;
    for (const [path, since] of this.#since) if (since + this.#settings.deleteDelayMinutes * 60_000 <= now) due.add(path);
    return due;
  }

  /** When the next waiting delete comes due (ms since epoch), or undefined when none waits. */
  nextDue(): number | undefined {
    if (this.#since.size === 0) return undefined;
    const first = Math.min(...this.#since.values()) + this.#settings.deleteDelayMinutes * 60_000;
    return this.#checkoutAt === undefined ? first : Math.max(first, this.#checkoutAt + this.#settings.checkoutDelayMinutes * 60_000);
  }

  get waiting(): number {
    return this.#since.size;
  }

  /**
   * Learns from a cycle's results which deletes wait now: new ones start their wait, a burst of them counts
   * as a checkout, and those that no longer wait went (deleted) or came back (no result at all: the file is
   * there again as it was). Only a cycle that went through may be read this way.
   */
  observe(results: readonly ActionResult[], now: number): DelayNews {
    const waitingNow = new Set(results.filter((result) => result.ok && result.reason === 'DELETE_WAITING').map((result) => result.path));
    const acted = new Set(results.map((result) => result.path));
    const fresh = [...waitingNow].filter((path) => !this.#since.has(path));
    const back = [...this.#since.keys()].filter((path) => !waitingNow.has(path) && !acted.has(path));
    for (const path of this.#since.keys()) if (!waitingNow.has(path)) this.#since.delete(path);
    for (const path of fresh) this.#since.set(path, now);
    const burst = fresh.length >= BURST ? fresh : [];
    if (burst.length > 0) this.checkout(now);
    return { back, burst };
  }

  #checkoutWaits(now: number): boolean {
    return this.#checkoutAt !== undefined && this.#checkoutAt + this.#settings.checkoutDelayMinutes * 60_000 > now;
  }
}
