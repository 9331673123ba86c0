import PQueue from 'p-queue';
import type { Clock } from './clock.js';
import { EndpointLimiter, type LimiterOptions } from './limiter.js';
import { zeroCounts, type CallCounts } from './stats.js';

/**
 * One endpoint's lane: an adaptive limiter and a dispatcher that releases one attempt at a time,
 * in order, when the limiter allows. The dispatcher only *starts* attempts (it waits for
 * the start, not the answer), so slow answers never lower the rate, and a paused endpoint holds
 * no global slot: throttling of one endpoint never stalls the others.
 */
export class Lane {
  readonly limiter: EndpointLimiter;
  readonly counts: CallCounts = zeroCounts();
  readonly #dispatcher = new PQueue({ concurrency: 1 });
  readonly #clock: Clock;

  constructor(options: LimiterOptions, clock: Clock) {
    this.limiter = new EndpointLimiter(options);
    this.#clock = clock;
  }

  /**
   * Waits for this endpoint's turn, then calls `start`, which must resolve `true` once the attempt
   * has really started, or `false` when the endpoint got paused meanwhile (then we wait again).
   */
  dispatch(start: () => Promise<boolean>, signal: AbortSignal): Promise<void> {
    return this.#dispatcher.add(
      async () => {
        for (;;) {
          await this.#waitForTurn(signal);
          if (await start()) return;
        }
      },
      { signal },
    );
  }

  /** True when the endpoint may start a call right now. */
  ready(): boolean {
    return this.#clock.now() >= this.limiter.nextStartAt();
  }

  /** Records the start of the attempt being dispatched, with the time it was due if it had to wait. */
  started(now: number): void {
    this.limiter.started(now, this.#dueAt);
  }

  /** When the attempt now being dispatched was due, if it had to wait for its turn (dispatch is one at a time). */
  #dueAt: number | undefined;

  async #waitForTurn(signal: AbortSignal): Promise<void> {
    this.#dueAt = undefined;
    for (;;) {
      signal.throwIfAborted();
      const due = this.limiter.nextStartAt();
      const wait = due - this.#clock.now();
      if (wait <= 0) return;
      this.#dueAt = due;
      // Woken early by the signal (the queue closed): the loop's first line then refuses the attempt.
      await this.#clock.sleep(wait, signal);
    }
  }
}
