/** Exact call accounting: `kbsync status` and the benchmarks report these numbers. */
export type CallCounts = {
  /** HTTP calls started (every attempt, retries included). */
  calls: number;
  /** Answers that were throttling (429, or 403 QpsLimit). */
  throttled: number;
  /** Attempts repeated after a throttle or a transient failure. */
  retries: number;
  /** Operations that ended in an error. */
  failures: number;
};

export type EndpointStats = Readonly<CallCounts> & {
  /** The adaptive rate in force now, in calls per second (0 = unpaced). */
  readonly rate: number;
};

export type QueueStats = {
  readonly endpoints: Readonly<Record<string, EndpointStats>>;
  readonly totals: Readonly<CallCounts>;
  /** Attempts waiting for their turn (not started). */
  readonly queued: number;
  /** Attempts started and not yet answered. */
  readonly inFlight: number;
  /** Operations accepted and not yet settled (their attempts may be waiting, running or backing off). */
  readonly operations: number;
};

export const zeroCounts = (): CallCounts => ({ calls: 0, throttled: 0, retries: 0, failures: 0 });

export function addCounts(into: CallCounts, from: Readonly<CallCounts>): void {
  into.calls += from.calls;
  into.throttled += from.throttled;
  into.retries += from.retries;
  into.failures += from.failures;
}
