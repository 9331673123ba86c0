// The daemon (kbsync watch): re-exports only.
export { runDaemon, DAEMON_EXIT, type DaemonOptions } from './daemon.js';
export { CALLS_TOTAL_KEY } from './call-meter.js';
export { planPolling, MIN_SWEEP_MS, MIN_PROBE_MS, HOT_WINDOW_MS, type PollingInput, type PollingPlan } from './polling-policy.js';
