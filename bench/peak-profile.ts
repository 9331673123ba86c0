/**
 * Where a one-shot sync of 10,000 notes holds its memory at its peak (issue 48, row 9), for someone
 * cutting it. Not part of the table. Each round builds row 9's tree afresh in /dev/shm (where there is
 * one) and runs, as row 9 does, its first push and then the two-way run that reads every write back,
 * with a built checkout's CLI, the emulator's limit off and the client unpaced. Every run says its VmHWM
 * (as row 9 counts it) and, sampled every 100 ms, the largest RSS with the V8 heap, array buffers and the
 * rest (native: SQLite's page cache, statements, code) at that moment. With `gc`, V8's --trace-gc lines are
 * kept; with `heap <MB>`, a heap snapshot is written the first time the RSS passes <MB> (`heap used<MB>`: the V8
 * heap in use).
 * Only 127.0.0.1.
 *
 *   node --import tsx bench/peak-profile.ts <checkout> <none|gc|heap> <rounds> [<MB> | used<MB>]
 *
 * <checkout> is a built kbsync (its bin/kbsync.js runs): a copy of bin/, dist/ and package.json made
 * before a change, then this one.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupAll } from './lib/cleanup.js';
import { TEN_K } from './lib/context.js';
import { PEAK_RSS_IMPORT, runProcess, type Finished } from './lib/proc.js';
import { createSite, IN_MEMORY, SERVICE_LIMIT, UNLIMITED_CLIENT, type Site } from './lib/site.js';

/**
 * Samples process.memoryUsage() every 100 ms (unref'd: it never keeps the run alive) and, at exit, writes
 * the sample with the largest RSS and the largest of each part to PEAK_PROFILE_OUT. PEAK_PROFILE_RSS_MB set:
 * one heap snapshot, into the working folder, when the RSS first passes it (PEAK_PROFILE_USED_MB: the heap in use).
 */
const SAMPLER_IMPORT = `--import=data:text/javascript,${encodeURIComponent(
  `import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
const t0 = Date.now();
const snapAt = Number(process.env.PEAK_PROFILE_RSS_MB ?? 0) * 1048576;
const snapAtUsed = Number(process.env.PEAK_PROFILE_USED_MB ?? 0) * 1048576;
let snapped = false;
const most = { rss: null, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, native: 0, series: [] };
let tick = 0;
setInterval(() => {
  const m = process.memoryUsage();
  const s = { atMs: Date.now() - t0, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, native: m.rss - m.heapTotal - m.external };
  if (most.rss === null || s.rss > most.rss.rss) {
    most.rss = s;
    s.spaces = Object.fromEntries(getHeapSpaceStatistics().filter((x) => x.space_size > 0).map((x) => [x.space_name.replace('_space', ''), Math.round(x.space_size / 104857.6) / 10 + '/' + Math.round(x.space_used_size / 104857.6) / 10]));
  }
  for (const k of ['heapUsed', 'heapTotal', 'external', 'arrayBuffers', 'native']) most[k] = Math.max(most[k], s[k]);
  if (tick++ % 20 === 0) most.series.push([Math.round(s.atMs / 1000), Math.round(s.rss / 1048576), Math.round(s.heapUsed / 1048576), Math.round(s.native / 1048576)]);
  if (!snapped && ((snapAt > 0 && m.rss > snapAt) || (snapAtUsed > 0 && m.heapUsed > snapAtUsed))) { snapped = true; writeHeapSnapshot(); }
}, 100).unref();
process.on('exit', () => writeFileSync(process.env.PEAK_PROFILE_OUT, JSON.stringify(most)));`,
)}`;

/** `spaces`: V8's heap spaces, each "committed/used" MB. */
type Sample = { atMs: number; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; native: number; spaces: Record<string, string> };
/** `series`: every 2 s, [seconds, RSS, heap used, native] in MB. */
type Most = { rss: Sample; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; native: number; series: [number, number, number, number][] };

const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);

async function runSync(site: Site, checkout: string, mode: 'push' | 'two-way', profiling: string, heapMb: string | undefined): Promise<void> {
  const out = join(site.dir, `peak-${mode}.json`);
  const flags = profiling === 'gc' ? ['--trace-gc'] : [];
  site.em.admin.setRateLimit(0);
  let run: Finished;
  try {
    run = await runProcess(process.execPath, [...flags, PEAK_RSS_IMPORT, SAMPLER_IMPORT, join(checkout, 'bin', 'kbsync.js'), 'sync', '--json', ...(mode === 'push' ? ['--push'] : []), '--config', site.configPath], {
      cwd: site.dir,
      timeoutMs: 3_600_000,
      env: { ...UNLIMITED_CLIENT, PEAK_PROFILE_OUT: out, ...(profiling === 'heap' && heapMb ? (heapMb.startsWith('used') ? { PEAK_PROFILE_USED_MB: heapMb.slice(4) } : { PEAK_PROFILE_RSS_MB: heapMb }) : {}) },
    });
  } finally {
    site.em.admin.setRateLimit(SERVICE_LIMIT);
  }
  if (run.code !== 0) throw new Error(`kbsync sync (${mode}) exited ${run.code ?? run.signal}:\n${run.stderr.slice(-2000)}`);
  const most = JSON.parse(await readFile(out, 'utf8')) as Most;
  const at = most.rss;
  console.log(
    `${mode.padEnd(7)} ${(run.ms / 1000).toFixed(0).padStart(4)} s  VmHWM ${run.peakRssMb.toFixed(1)} MB; sampled peak RSS ${mb(at.rss)} at ${(at.atMs / 1000).toFixed(1)} s = heap ${mb(at.heapTotal)} (used ${mb(at.heapUsed)}) + external ${mb(at.external)} (array buffers ${mb(at.arrayBuffers)}) + native ${mb(at.native)}; ` +
      `largest: heapUsed ${mb(most.heapUsed)}, heapTotal ${mb(most.heapTotal)}, external ${mb(most.external)}, native ${mb(most.native)}`,
  );
  console.log(`  V8 spaces at the peak, committed/used MB: ${Object.entries(at.spaces).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  every 2 s, seconds:RSS/heap used/native MB: ${most.series.map((p) => `${p[0]}:${p[1]}/${p[2]}/${p[3]}`).join(' ')}`);
  const keep = join(tmpdir(), 'kbsync-peak-profile');
  await mkdir(keep, { recursive: true });
  if (profiling === 'gc') {
    const file = join(keep, `${Date.now()}-${mode}.gc.txt`);
    await writeFile(file, run.stdout);
    console.log(`  --trace-gc: ${file}`);
  }
  for (const name of (await readdir(site.dir)).filter((n) => n.endsWith('.heapsnapshot'))) {
    await rename(join(site.dir, name), join(keep, `${mode}-${name}`));
    console.log(`  heap snapshot: ${join(keep, `${mode}-${name}`)}`);
  }
}

async function main(): Promise<void> {
  const [checkout, profiling, rounds, heapMb] = process.argv.slice(2) as [string, string, string, string | undefined];
  if (!checkout || !['none', 'gc', 'heap'].includes(profiling) || !(Number(rounds) >= 1)) {
    throw new Error('usage: node --import tsx bench/peak-profile.ts <checkout> <none|gc|heap> <rounds> [<MB> | used<MB>]');
  }
  for (let r = 0; r < Number(rounds); r++) {
    const site = await createSite(`peak-${r}`, TEN_K, IN_MEMORY);
    await runSync(site, checkout, 'push', profiling, heapMb);
    // As row 9's settle: the emulator's clock moved to real time, so every write's minute is over.
    site.em.admin.setClockOffset(0);
    await runSync(site, checkout, 'two-way', profiling, heapMb);
    await site.dispose();
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
