import { setTimeout as delay } from 'node:timers/promises';

/**
 * Time as the queue and the client see it. Injected so that tests can run pacing, pauses and
 * backoff in virtual time: exact, fast, and without asserting wall-clock durations.
 */
export type Clock = {
  now(): number;
  /** Resolves after `ms`; resolves early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
};

/**
 * The longest one timer can wait: Node fires a longer one at once (with a TimeoutOverflowWarning), so an
 * unbounded wait would turn into a busy loop. Callers wait in a loop until their due time, so a cut wait
 * only means another lap.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0 || signal?.aborted) return;
    await delay(Math.min(ms, MAX_TIMER_MS), undefined, signal ? { signal } : {}).catch(() => undefined);
  },
};
