import PQueue from 'p-queue';
import type { Clock } from './clock.js';
import { EndpointLimiter, type LimiterOptions } from './limiter.js';
import { zeroCounts, type CallCounts } from './stats.js';

/**
 * One endpoint's lane: an adaptive limiter and a dispatcher that releases one attempt at a time,
 * in priority order, when the limiter allows. The dispatcher only *starts* attempts (it waits for
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
  dispatch(start: () => Promise<boolean>, priority: number, signal: AbortSignal): Promise<void> {
    return this.#dispatcher.add(
      async () => {
        for (;;) {
          await this.#waitForTurn(signal);
          if (await start()) return;
        }
      },
      { priority, signal },
    );
  }

  /** True when the endpoint may start a call right now. */
  ready(): boolean {
    return this.#clock.now() >= this.limiter.nextStartAt();
  }

  async #waitForTurn(signal: AbortSignal): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      const wait = this.limiter.nextStartAt() - this.#clock.now();
      if (wait <= 0) return;
      await this.#clock.sleep(wait);
    }
  }
}
