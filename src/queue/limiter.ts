/**
 * The adaptive rate of one endpoint (AIMD). The service gives each endpoint its own budget
 * (about 20 calls/s per app), so each endpoint paces and backs off on its own.
 *
 * - Pacing is even: one start per 1000/rate ms on a fixed schedule, so a client at 20/s stays inside a
 *   20/s token bucket. A call that was due but started late (a busy event loop, timer slop, a global
 *   slot still taken) keeps its slot in the schedule: the next one is due one interval after the slot,
 *   not after the late start, so lateness does not lower the rate. The catch-up is bounded by one
 *   interval: at most rate × window + 1 starts in any window, never a burst after an idle spell.
 * - A throttle answer halves the rate (down to `minRate`) and pauses the endpoint for at least
 *   `minPauseMs` (or Retry-After when larger): the service asked us to wait.
 * - After `quietMs` without a throttle the rate climbs back additively, one step per quiet period.
 */
export type LimiterOptions = {
  /** Calls per second; 0 turns pacing off. */
  readonly rate: number;
  readonly minRate: number;
  readonly minPauseMs: number;
  readonly quietMs: number;
};

export class EndpointLimiter {
  readonly #options: LimiterOptions;
  #rate: number;
  #lastStart = Number.NEGATIVE_INFINITY;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #lastChange = Number.NEGATIVE_INFINITY;

  constructor(options: LimiterOptions) {
    this.#options = options;
    this.#rate = options.rate;
  }

  get rate(): number {
    return this.#rate;
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** The earliest time the next call may start. */
  nextStartAt(): number {
    const spacing = this.#rate > 0 ? 1000 / this.#rate : 0;
    return Math.max(this.#pausedUntil, this.#lastStart + spacing);
  }

  /**
   * Records that a call started now, and probes the rate back up after a quiet period. `dueAt`: the
   * time the call was waiting for (nextStartAt when it had to wait); a call that did not wait has none.
   */
  started(now: number, dueAt?: number): void {
    const spacing = this.#rate > 0 ? 1000 / this.#rate : 0;
    this.#lastStart = dueAt === undefined ? now : Math.min(now, Math.max(dueAt, now - spacing));
    const { rate, quietMs } = this.#options;
    if (this.#rate > 0 && this.#rate < rate && now - this.#lastChange >= quietMs) {
      this.#rate = Math.min(rate, this.#rate + Math.max(1, rate / 10));
      this.#lastChange = now;
    }
  }

  /** The service throttled a call: back off. Returns how long the endpoint is paused, in ms. */
  throttled(now: number, retryAfterMs = 0): number {
    const { rate, minRate, minPauseMs } = this.#options;
    const pauseMs = Math.max(minPauseMs, retryAfterMs);
    // Several calls already in flight are often throttled together: that is one signal, not many.
    // Pacing that is off stays off: only the pause applies.
    if (rate > 0 && now >= this.#pausedUntil) this.#rate = Math.max(Math.min(minRate, rate), this.#rate / 2);
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    this.#lastChange = now;
    return pauseMs;
  }
}
