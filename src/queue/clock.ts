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

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0 || signal?.aborted) return;
    await delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined);
  },
};
