import type { Ledger } from '../ledger/index.js';

/** Ledger meta key of the daemon's waiting work, read by `kbsync status` (which may run while the daemon holds the lock). */
export const QUEUE_LENGTH_KEY = 'queue.length';

/**
 * How much work the daemon has waiting: files changed since the running cycle began, plus the actions of
 * that cycle not yet done. Each write is a durable ledger commit (an fsync), so none is made between a
 * save and its upload: a change is written a second later at the earliest (the count it has then), and
 * the end of every cycle is written at once.
 */
export class WorkGauge {
  readonly #ledger: Ledger;
  readonly #waiting = new Set<string>();
  #remaining = 0;
  #written = -1;
  #timer: NodeJS.Timeout | undefined;

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
  }

  hinted(paths: readonly string[]): void {
    for (const path of paths) this.#waiting.add(path);
    this.#later();
  }

  /** A cycle began: it covers every change seen so far. */
  cycleStarted(): void {
    this.#waiting.clear();
    this.#later();
  }

  planned(count: number): void {
    this.#remaining = count;
    this.#later();
  }

  done(): void {
    this.#remaining = Math.max(0, this.#remaining - 1);
    this.#later();
  }

  cycleEnded(): void {
    this.#remaining = 0;
    this.#flush();
  }

  get length(): number {
    return this.#waiting.size + this.#remaining;
  }

  #later(): void {
    // Unref'd: a gauge never keeps the process alive.
    this.#timer ??= setTimeout(() => this.#flush(), 1000).unref();
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const length = this.length;
    if (length === this.#written || !this.#ledger.isOpen) return;
    try {
      this.#ledger.meta.set(QUEUE_LENGTH_KEY, length);
      this.#written = length;
    } catch {
      // A gauge only informs `kbsync status`: a write that fails (a full disk, a busy ledger) is tried again with
      // the next change, and never ends the daemon from its timer (an uncaught exception would).
    }
  }
}
