/** setTimeout fires at once for delays past 2^31-1 ms (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Time as the daemon sees it: the time now, and one wake-up after a delay. Injected so that tests run the
 * daemon's waits (a delete's minutes, a checkout's hour, the sweeps' schedule) in virtual time: exact, at
 * once, and without sleeping.
 */
export type DaemonClock = {
  now(): number;
  /** Calls `fn` once after `delayMs`; the function returned cancels it. `keepAlive`: the wait keeps the process running. */
  after(delayMs: number, fn: () => void, keepAlive: boolean): () => void;
};

export const systemClock: DaemonClock = {
  now: () => Date.now(),
  after(delayMs, fn, keepAlive) {
    const timer = setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_MS));
    if (!keepAlive) timer.unref();
    return () => clearTimeout(timer);
  },
};
