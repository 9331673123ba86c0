import type { Ledger } from '../ledger/index.js';

/** Ledger meta key of the daemon's waiting work, read by `kbsync status` (which may run while the daemon holds the lock). */
export const QUEUE_LENGTH_KEY = 'queue.length';

/**
 * How much work the daemon has waiting: files changed since the running cycle began, plus the actions of
 * that cycle not yet done. Written to the ledger at most once a second (a write per file would cost more
 * than the information is worth), and at every cycle's start and end.
 */
export class WorkGauge {
  readonly #ledger: Ledger;
  readonly #waiting = new Set<string>();
  #remaining = 0;
  #written = -1;
  #lastWriteAt = 0;

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
  }

  hinted(paths: readonly string[]): void {
    for (const path of paths) this.#waiting.add(path);
    this.#write(false);
  }

  /** A cycle began: it covers every change seen so far. */
  cycleStarted(): void {
    this.#waiting.clear();
    this.#write(true);
  }

  planned(count: number): void {
    this.#remaining = count;
    this.#write(true);
  }

  done(): void {
    this.#remaining = Math.max(0, this.#remaining - 1);
    this.#write(false);
  }

  cycleEnded(): void {
    this.#remaining = 0;
    this.#write(true);
  }

  get length(): number {
    return this.#waiting.size + this.#remaining;
  }

  #write(now: boolean): void {
    const length = this.length;
    if (length === this.#written || !this.#ledger.isOpen) return;
    if (!now && Date.now() - this.#lastWriteAt < 1000 && length !== 0) return;
    this.#ledger.meta.set(QUEUE_LENGTH_KEY, length);
    this.#written = length;
    this.#lastWriteAt = Date.now();
  }
}
