import type { Clock } from '../../../src/queue/clock.js';

type Timer = { readonly at: number; readonly seq: number; readonly wake: () => void };

/**
 * Virtual time for pacing tests: a sleep returns as soon as nothing earlier is pending, and the
 * clock jumps to its end. Assertions are then exact numbers in virtual ms, never wall-clock times.
 */
export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];
  #scheduled = false;

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer: Timer = { at: this.#now + ms, seq: this.#seq++, wake: resolve };
      this.#timers.push(timer);
      signal?.addEventListener('abort', () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        resolve();
      });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate lets pending promise chains and I/O run first, so that only sleepers that are
    // really waiting move time forward.
    setImmediate(() => {
      this.#scheduled = false;
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers.shift();
      if (!next) return;
      this.#now = Math.max(this.#now, next.at);
      next.wake();
      if (this.#timers.length > 0) this.#schedule();
    });
  }
}
