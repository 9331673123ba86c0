/**
 * Where an idle `kbsync watch` spends its CPU and memory (issue 48), for someone cutting it. Not part of the
 * table. Builds row 6's tree and keeps it, with its emulator, while checkouts are measured against it one
 * daemon at a time: each daemon is started as row 6 starts it, left 10 s after its first sweep, then sampled
 * over an idle window (CPU per minute and RSS, as row 6 counts them), with one of: `cpu` (a CPU profile; the
 * window's self time per function), `heap` (a heap snapshot after the window, kept), `gc` (V8's --trace-gc
 * lines from the first sweep on), `none`. Only 127.0.0.1.
 *
 *   node --import tsx bench/idle-profile.ts build <1k|10k>     prints the tree's folder; stop it with Ctrl-C
 *   node --import tsx bench/idle-profile.ts run <folder> <checkout> <none|cpu|heap|gc> <idleSeconds> <rounds>
 *
 * <checkout> is a built kbsync (its bin/kbsync.js runs): a copy of dist/ made before a change, then this one.
 */
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cleanupAll } from './lib/cleanup.js';
import { ONE_K, TEN_K } from './lib/context.js';
import { isSweepDone, isWatching, sleep } from './lib/daemon.js';
import { idleFootprints } from './lib/footprint.js';
import { startBackground } from './lib/proc.js';
import { createSettledSite, type Site } from './lib/site.js';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };

/** Self time per function (µs) of the samples taken after `fromUs` (the profile's clock). */
function selfTimes(profile: Profile, fromUs: number): { total: number; byFunction: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < fromUs) continue;
    const node = byId.get(profile.samples[i] as number) as Node;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    const key = `${functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
    total += delta;
  }
  return { total, byFunction };
}

type Place = Pick<Site, 'dir' | 'configPath'>;

const snapshotsIn = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith('.heapsnapshot'));

async function runOnce(site: Place, checkout: string, idleS: number, profDir: string): Promise<void> {
  await mkdir(profDir, { recursive: true });
  const bin = join(checkout, 'bin', 'kbsync.js');
  const profiling = process.env['PROF'] ?? 'none';
  const flags = profiling === 'cpu' ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : profiling === 'heap' ? ['--heapsnapshot-signal=SIGUSR2'] : profiling === 'gc' ? ['--trace-gc'] : [];
  const child = startBackground(process.execPath, [...flags, bin, 'watch', '--json-logs', '--config', site.configPath], {
    cwd: site.dir,
    env: { KBSYNC_LOG_LEVEL: 'debug' },
  });
  const started = performance.now();
  const lines = (): string[] => child.output().split('\n').filter((l) => l.startsWith('{'));
  const wait = async (match: (msg: string) => boolean): Promise<void> => {
    while (!lines().some((l) => match((JSON.parse(l) as { msg: string }).msg))) await sleep(50);
  };
  await wait((m) => isWatching({ msg: m, time: 0 }));
  await wait((m) => isSweepDone({ msg: m, time: 0 }));
  const sweptAfterS = (performance.now() - started) / 1000;
  const outputAtSweep = child.output().length;
  await sleep(10_000);
  const windowFromMs = Date.now();
  const logBefore = lines().length;
  const [fp] = await idleFootprints([child.pid], idleS);
  const logLines = lines().slice(logBefore);
  if (profiling === 'heap') {
    for (const f of await snapshotsIn(site.dir)) await rm(join(site.dir, f));
    child.child.kill('SIGUSR2');
    // Written synchronously by the daemon: done once the file ends its JSON.
    for (;;) {
      await sleep(2000);
      const [file] = await snapshotsIn(site.dir);
      if (file && (await readFile(join(site.dir, file), 'utf8')).trimEnd().endsWith(']}')) break;
    }
  }
  await child.stop(15_000);
  const stoppedAt = Date.now();
  const sweeps = logLines.filter((l) => l.includes('"cycle":"sweep"')).length;
  const head = `\n=== ${checkout}: idle CPU ${fp?.cpuMsPerMinute.toFixed(0)} ms/min, RSS ${fp?.rssMb.toFixed(1)} MB; sweeps in window ${sweeps}; log lines ${logLines.length}; first sweep done after ${sweptAfterS.toFixed(0)} s`;
  if (profiling !== 'cpu') {
    console.log(head);
    if (profiling === 'gc') console.log(child.output().slice(outputAtSweep).split('\n').filter((l) => !l.startsWith('{')).join('\n'));
    for (const f of profiling === 'heap' ? await snapshotsIn(site.dir) : []) {
      await copyFile(join(site.dir, f), join(profDir, f));
      console.log(join(profDir, f));
    }
    return;
  }
  const file = (await readdir(profDir)).filter((f) => f.endsWith('.cpuprofile')).sort().pop() as string;
  const profile = JSON.parse(await readFile(join(profDir, file), 'utf8')) as Profile;
  // The profile ends as the process exits (just after the window): count back from there.
  const endUs = profile.startTime + profile.timeDeltas.reduce((a, b) => a + b, 0);
  const fromUs = endUs - (stoppedAt - windowFromMs) * 1000;
  const { total, byFunction } = selfTimes(profile, fromUs);
  const top = [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
  console.log(`${head}; profiled ${(total / 1000).toFixed(0)} ms in the window (${((stoppedAt - windowFromMs) / 1000).toFixed(0)} s incl. stop)`);
  for (const [name, us] of top) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`);
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'build') {
    const { site } = await createSettledSite(`profile-${args[0]}`, args[0] === '10k' ? TEN_K : ONE_K);
    console.log(`site ready: ${site.dir}`);
    await new Promise(() => undefined);
  }
  const [dir, checkout, prof, idle, rounds] = args as [string, string, string, string, string];
  process.env['PROF'] = prof;
  for (let r = 0; r < Number(rounds); r++) await runOnce({ dir, configPath: join(dir, 'sync.config.json') }, checkout, Number(idle), join(tmpdir(), 'kbsync-idle-profile', String(Date.now())));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
