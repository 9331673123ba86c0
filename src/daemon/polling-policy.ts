/**
 * How often the daemon looks at the remote side, within `watch.pollBudgetPerHour` calls.
 *
 * - A full sweep lists the whole tree (one listNodes call per folder page, measured on the last sweep)
 *   and reads once each document whose last write is still uncertain (our own writes within the
 *   service's minute): its cost is `listingCalls + expectedChecks`.
 * - Documents changed on either side in the last HOT_WINDOW_MS are "hot": between sweeps each one is
 *   probed with one getNode call (its modifiedTime); a change found brings the next sweep forward.
 * - Sweeps get the whole budget when nothing is hot, half of it otherwise; probes get what the sweeps
 *   leave. Sweeps are never closer than MIN_SWEEP_MS, and never further apart than
 *   `watch.fullSweepMinutes`, which wins over the budget (so a very large tree may overspend it, and a
 *   fullSweepMinutes below half a minute makes sweeps that frequent). Probes that would not come
 *   before the next sweep are skipped: the sweep sees those documents anyway.
 * - A budget of 0 turns remote polling off: local edits are still pushed, remote edits arrive at the
 *   next start (or SIGHUP).
 *
 * Default budget 600/h, a tree of 1 folder page and 3 hot documents: sweeps every 30 s (120 calls/h),
 * probes every 22.5 s. 20 folder pages and 5 hot: sweeps every 4 min (300/h), probes every 60 s (300/h).
 */
export const MIN_SWEEP_MS = 30_000;
export const MIN_PROBE_MS = 15_000;
export const HOT_WINDOW_MS = 10 * 60_000;
const HOUR_MS = 3_600_000;

export type PollingInput = {
  readonly budgetPerHour: number;
  /** listNodes calls of the last full listing (at least 1: the root's first page). */
  readonly listingCalls: number;
  /** Documents a sweep will read once more because the listing cannot prove them unchanged. */
  readonly expectedChecks: number;
  readonly hotDocs: number;
  readonly fullSweepMinutes: number;
};

export type PollingPlan = {
  /** Time between full sweeps; null: no remote polling. */
  readonly sweepEveryMs: number | null;
  /** Time between probe rounds of the hot documents; null: no probes. */
  readonly probeEveryMs: number | null;
  /** Calls per hour this plan spends (sweeps + probes), for the debug log. */
  readonly callsPerHour: number;
};

export function planPolling(input: PollingInput): PollingPlan {
  if (input.budgetPerHour <= 0) return { sweepEveryMs: null, probeEveryMs: null, callsPerHour: 0 };
  const sweepCost = Math.max(1, input.listingCalls) + Math.max(0, input.expectedChecks);
  const sweepShare = input.hotDocs > 0 ? input.budgetPerHour / 2 : input.budgetPerHour;
  const byBudget = Math.max(MIN_SWEEP_MS, (HOUR_MS * sweepCost) / sweepShare);
  const sweepEveryMs = Math.min(input.fullSweepMinutes * 60_000, byBudget);
  const sweepsPerHour = (HOUR_MS / sweepEveryMs) * sweepCost;
  const probeShare = input.budgetPerHour - sweepsPerHour;
  if (input.hotDocs <= 0 || probeShare <= 0) return { sweepEveryMs, probeEveryMs: null, callsPerHour: sweepsPerHour };
  const probeEveryMs = Math.max(MIN_PROBE_MS, (HOUR_MS * input.hotDocs) / probeShare);
  if (probeEveryMs >= sweepEveryMs) return { sweepEveryMs, probeEveryMs: null, callsPerHour: sweepsPerHour };
  return { sweepEveryMs, probeEveryMs, callsPerHour: sweepsPerHour + (HOUR_MS / probeEveryMs) * input.hotDocs };
}
