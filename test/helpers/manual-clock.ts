import type { DaemonClock } from '../../src/daemon/clock.js';

type Wake = { readonly at: number; readonly order: number; readonly fn: () => void; cancelled: boolean };

/**
 * The daemon's clock in virtual time: `now()` moves only when the test advances it, and each wake-up runs when
 * the time passes its due, in due order (ties in the order they were set). Nothing sleeps, so a test of an
 * hour's wait is exact and takes no time.
 */
export class ManualClock implements DaemonClock {
  #now: number;
  #order = 0;
  #wakes: Wake[] = [];

  constructor(start = Date.UTC(2030, 0, 7, 9, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  after(delayMs: number, fn: () => void): () => void {
    const wake: Wake = { at: this.#now + Math.max(0, delayMs), order: this.#order++, fn, cancelled: false };
    this.#wakes.push(wake);
    return () => {
      wake.cancelled = true;
    };
  }

  /** Moves the time on by `ms`, running every wake-up due meanwhile (one set on the way runs too, if it falls due). */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      this.#wakes = this.#wakes.filter((wake) => !wake.cancelled);
      const next = this.#wakes.filter((wake) => wake.at <= end).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      next.cancelled = true;
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = end;
  }
}
