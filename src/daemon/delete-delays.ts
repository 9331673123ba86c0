import { compare } from '../sync/decide/placement.js';
import type { DeferDeletes } from '../sync/decide/types.js';
import type { ActionResult } from '../sync/run/executor.js';

/** So many files gone in one cycle is a checkout (or a folder moved away), not deletions one by one. */
export const BURST = 5;
/**
 * git moves HEAD last, once the files are written: a cycle can catch a checkout half done (some files gone, HEAD
 * not moved yet). A file first found gone this long before the checkout was seen is taken as the checkout's too.
 * A delete made minutes before a checkout is not: its wait stays its own.
 */
export const CHECKOUT_SPAN_MS = 60_000;

type DelaySettings = { readonly deleteDelayMinutes: number; readonly checkoutDelayMinutes: number };

/** A removal that waits: a file gone (`delete`), or moved by a checkout to another folder (`move`, now at `to`), by its record's path. */
export type Removal = {
  readonly path: string;
  readonly kind: 'delete' | 'move';
  readonly to?: string;
  /** When a cycle first found it. */
  readonly since: number;
  /** A checkout (HEAD moved, or many files gone at once) brought it: it waits until the branch has stayed. */
  readonly checkout: boolean;
};

export type Waiting = Removal & { readonly dueAt: number };

/** What a cycle's results teach, for the daemon to say (each thing once). */
export type DelayNews = {
  /** Files deleted one by one (a person's deletes), each with its time. */
  readonly deleted: readonly Waiting[];
  /** A checkout (or a burst of files gone, with no checkout seen): what it brought, and what of earlier checkouts waits longer now. */
  readonly checkout?: { readonly burst: boolean; readonly brought: readonly Waiting[]; readonly extended: readonly Waiting[]; readonly dueAt: number };
  /** Files back (where they were) before their removal was sent: their documents stay. */
  readonly back: readonly Removal[];
};

/**
 * The daemon's removals that wait (design: an edit beats a delete, and a file that comes back keeps its document
 * and URL). A file deleted here waits `deleteDelayMinutes` from when a cycle first found it gone. What a checkout
 * brings (the files it removed, and those it moved to another folder: the service cannot move a document, so a
 * move deletes one too) waits until the branch has stayed `checkoutDelayMinutes`, and so does what an earlier
 * checkout brought, since the branch did not stay; a delete the checkout did not bring keeps its own wait. After a
 * restart each wait starts again (`resume`), the safe side.
 */
export class DeleteDelays {
  #settings: DelaySettings;
  readonly #waits = new Map<string, Removal>();
  /** When the branch last changed (HEAD moved, or a burst): what checkouts brought waits for it to stay. */
  #checkoutAt: number | undefined;
  /** HEAD moved before the coming (or a failed) cycle: what that cycle finds removed is the checkout's. */
  #switchSeenAt: number | undefined;
  /** The records the last cycle was told it may remove: one of them that no longer waits went, it did not come back. */
  #given: ReadonlySet<string> = new Set();

  constructor(settings: DelaySettings) {
    this.#settings = settings;
  }

  update(settings: DelaySettings): void {
    this.#settings = settings;
  }

  /**
   * What the last daemon kept waiting, after a restart: each wait starts anew from `now` (the safe side: a file
   * that comes back meanwhile keeps its document), and keeps its cause, so a checkout's move still waits.
   */
  resume(waits: readonly Pick<Removal, 'path' | 'kind' | 'to' | 'checkout'>[], now: number): void {
    for (const { path, kind, to, checkout } of waits) this.#waits.set(path, { path, kind, ...(to !== undefined ? { to } : {}), since: now, checkout });
    if (waits.some((wait) => wait.checkout)) this.#checkoutAt = now;
  }

  /** A checkout was seen (HEAD changed) before a cycle: what that cycle finds removed or moved waits for the branch to stay. */
  checkout(now: number): void {
    this.#checkoutAt = now;
    this.#switchSeenAt = now;
  }

  /** What the coming cycle may remove; undefined when nothing is deferred (no delay, no checkout wait), as in a one-shot sync. */
  deferral(now: number): DeferDeletes | undefined {
    if (this.#settings.deleteDelayMinutes <= 0 && !this.#checkoutWaits(now)) {
      this.#given = new Set();
      return undefined;
    }
    const due = new Set([...this.#waits.values()].filter((wait) => this.#dueAt(wait) <= now).map((wait) => wait.path));
    this.#given = due;
    const moves = this.#switchSeenAt !== undefined ? 'all' : new Set([...this.#waits.values()].filter((wait) => wait.kind === 'move' && !due.has(wait.path)).map((wait) => wait.path));
    return { due, moves };
  }

  /** When the next waiting removal comes due (ms since epoch), or undefined when none waits. */
  nextDue(): number | undefined {
    const times = [...this.#waits.values()].map((wait) => this.#dueAt(wait));
    return times.length === 0 ? undefined : Math.min(...times);
  }

  get waiting(): number {
    return this.#waits.size;
  }

  /** Every removal that waits, with when it goes. */
  list(): Waiting[] {
    return [...this.#waits.values()].map((wait) => this.#withDue(wait));
  }

  /**
   * Learns from a cycle's results which removals wait now: new ones start their wait (a checkout's, when the cycle
   * saw HEAD move or found many files gone at once), and those that no longer wait went, or came back (no result at
   * all: the file is there again as it was). Only a cycle that went through may be read this way.
   */
  observe(results: readonly ActionResult[], now: number): DelayNews {
    const waitingNow = new Map<string, Pick<Removal, 'kind' | 'to'>>();
    // By path, whatever order the cycle's actions ended in: what is said is the same every time.
    for (const result of [...results].sort((a, b) => compare(a.path, b.path))) {
      if (!result.ok) continue;
      if (result.reason === 'DELETE_WAITING') waitingNow.set(result.path, { kind: 'delete' });
      if (result.reason === 'MOVE_WAITING') waitingNow.set(result.from ?? result.path, { kind: 'move', to: result.path });
    }
    const acted = new Set(results.map((result) => (result.ok ? (result.from ?? result.path) : result.path)));
    const back = [...this.#waits.values()].filter((wait) => !waitingNow.has(wait.path) && !acted.has(wait.path) && !this.#given.has(wait.path));
    for (const path of [...this.#waits.keys()]) if (!waitingNow.has(path)) this.#waits.delete(path);

    const fresh = [...waitingNow.keys()].filter((path) => !this.#waits.has(path));
    const burst = this.#switchSeenAt === undefined && fresh.length >= BURST;
    const checkoutAt = this.#switchSeenAt ?? (burst ? now : undefined);
    // What a checkout's wait held already waits longer now: the branch did not stay.
    const extended = checkoutAt === undefined ? [] : [...this.#waits.values()].filter((wait) => wait.checkout);
    const claimed = checkoutAt === undefined ? [] : [...this.#waits.values()].filter((wait) => !wait.checkout && wait.since >= checkoutAt - CHECKOUT_SPAN_MS);
    for (const [path, what] of waitingNow) {
      const known = this.#waits.get(path);
      // A move is only ever held for a checkout; a file known to wait keeps its start and its cause.
      const checkout = known ? known.checkout || claimed.includes(known) : checkoutAt !== undefined || what.kind === 'move';
      this.#waits.set(path, { path, ...what, since: known?.since ?? now, checkout });
    }
    if (checkoutAt !== undefined) this.#checkoutAt = checkoutAt;
    this.#switchSeenAt = undefined;

    const deleted = fresh.map((path) => this.#waits.get(path) as Removal).filter((wait) => !wait.checkout);
    const brought = [...claimed.map((wait) => wait.path), ...fresh].map((path) => this.#waits.get(path) as Removal).filter((wait) => wait.checkout);
    const news = { deleted: deleted.map((wait) => this.#withDue(wait)), back };
    if (checkoutAt === undefined || this.#checkoutAt === undefined) return news;
    const dueAt = this.#checkoutAt + this.#settings.checkoutDelayMinutes * 60_000;
    const still = (wait: Removal): Waiting => this.#withDue(this.#waits.get(wait.path) ?? wait);
    return { ...news, checkout: { burst, brought: brought.map(still), extended: extended.filter((wait) => this.#waits.has(wait.path)).map(still), dueAt } };
  }

  #withDue(wait: Removal): Waiting {
    return { ...wait, dueAt: this.#dueAt(wait) };
  }

  #dueAt(wait: Removal): number {
    const own = wait.kind === 'delete' ? wait.since + this.#settings.deleteDelayMinutes * 60_000 : wait.since;
    if (!wait.checkout || this.#checkoutAt === undefined) return own;
    return Math.max(own, this.#checkoutAt + this.#settings.checkoutDelayMinutes * 60_000);
  }

  #checkoutWaits(now: number): boolean {
    return this.#checkoutAt !== undefined && this.#checkoutAt + this.#settings.checkoutDelayMinutes * 60_000 > now;
  }
}
