import { performance } from 'node:perf_hooks';
import type { Background } from './proc.js';
import { sampleProcess } from './proc.js';
import { sleep } from './daemon.js';

export type Footprint = { readonly rssMb: number; readonly cpuMsPerMinute: number };

/**
 * RSS (the largest of samples every 5 s) and CPU time over an idle window of `seconds`, for several
 * processes side by side; CPU is scaled to a minute by the time that really passed between the first and
 * the last sample, not by `seconds`: on a loaded machine (or with this process busy) the window stretches,
 * and a 150 s window scaled as 25 s counted its CPU six times over. Both processes live through the same window.
 */
export async function idleFootprints(pids: readonly number[], seconds: number): Promise<Footprint[]> {
  const first = await Promise.all(pids.map(sampleProcess));
  const started = performance.now();
  const maxRss = first.map((s) => s.rssBytes);
  const steps = Math.max(1, Math.round(seconds / 5));
  let last = first;
  for (let i = 0; i < steps; i++) {
    await sleep((seconds * 1000) / steps);
    last = await Promise.all(pids.map(sampleProcess));
    last.forEach((s, k) => (maxRss[k] = Math.max(maxRss[k] as number, s.rssBytes)));
  }
  const elapsedS = (performance.now() - started) / 1000;
  return pids.map((_, k) => ({
    rssMb: (maxRss[k] as number) / (1024 * 1024),
    cpuMsPerMinute: (((last[k]?.cpuMs ?? 0) - (first[k]?.cpuMs ?? 0)) * 60) / elapsedS,
  }));
}

/** Waits until the bare watcher says it is ready. */
export async function ready(watcher: Background, timeoutMs: number): Promise<void> {
  await watcher.waitFor(/^ready$/m, timeoutMs);
}
