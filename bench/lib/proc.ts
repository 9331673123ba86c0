import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { onCleanup } from './cleanup.js';

export type Finished = {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** CPU time (user + system) of the process and what it waited for; exact only while no other child of the benchmark ends meanwhile. */
  readonly cpuMs: number;
  /** The node process's RSS high-water mark (MB), when it ran with PEAK_RSS_IMPORT and exited by itself (on Linux); else NaN. */
  readonly peakRssMb: number;
};
export type RunOptions = { readonly cwd?: string; readonly env?: Record<string, string>; readonly timeoutMs?: number };

const PEAK_RSS_MARK = 'kbsync-bench-peak-rss-kb=';

/**
 * Node arguments (before the script) that make a node process say its RSS high-water mark as it exits,
 * whatever ends it short of a signal (process.exit included): the kernel's own figure, not a sample that may
 * miss the peak. VmHWM (/proc/self/status), the high-water mark of the memory the process has since its exec,
 * not getrusage's ru_maxrss, which keeps the parent's RSS at the fork (the benchmark's, with its emulators).
 * Written to stderr, which is synchronous for a pipe.
 */
export const PEAK_RSS_IMPORT = `--import=data:text/javascript,${encodeURIComponent(
  `import { readFileSync } from 'node:fs';
process.on('exit', () => process.stderr.write('\\n${PEAK_RSS_MARK}' + (/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '') + '\\n'));`,
)}`;

const peakRssMbOf = (stderr: string): number => {
  const kb = new RegExp(`^${PEAK_RSS_MARK}(\\d+)$`, 'm').exec(stderr)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) / 1024;
};

/**
 * Runs a command to completion and times it from spawn to exit, as a user waiting at a prompt
 * would (process start included). Never throws on a non-zero exit; a run past its timeout is killed.
 */
export function runProcess(command: string, args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const cpuBefore = childrenCpuMs();
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const forget = onCleanup(`kill ${command} (pid ${child.pid ?? '?'})`, () => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      void forget();
      reject(error);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      const cpuMs = childrenCpuMs() - cpuBefore;
      void forget().then(() => resolve({ code, signal, stdout, stderr, ms, cpuMs, peakRssMb: peakRssMbOf(stderr) }));
    });
  });
}

/** Like runProcess, but a non-zero exit is an error that shows the command's output. */
export async function runChecked(command: string, args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  const done = await runProcess(command, args, options);
  if (done.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${done.code ?? done.signal}:\n${done.stderr.slice(-2000)}${done.stdout.slice(-1000)}`);
  }
  return done;
}

/** A long-running child (the daemon): output kept, waitable by pattern, stopped gently then firmly. */
export type Background = {
  readonly pid: number;
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when the combined output matches, rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
};

export function startBackground(command: string, args: readonly string[], options: RunOptions = {}): Background {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  let text = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };
  const append = (chunk: Buffer): void => {
    text += chunk.toString();
    if (text.length > 4_000_000) text = text.slice(-2_000_000);
    notify();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const gone = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('close', () => {
    exited = true;
    notify();
  });
  const stop = async (graceMs = 15_000): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  };
  const forget = onCleanup(`stop ${command} (pid ${child.pid})`, () => stop(3_000));
  void gone.then(forget);
  return {
    pid: child.pid,
    child,
    output: () => text,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(text)) done(undefined);
          else if (exited) done(new Error(`${command} exited before printing ${pattern}:\n${text.slice(-3000)}`));
        };
        const timer = setTimeout(() => done(new Error(`${command} did not print ${pattern} within ${timeoutMs} ms:\n${text.slice(-3000)}`)), timeoutMs);
        const done = (error: Error | undefined): void => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        listeners.add(check);
        check();
      }),
    stop,
  };
}

/** CPU time (user + system) and resident memory of a live process, from /proc (Linux). */
export type ProcSample = { readonly cpuMs: number; readonly rssBytes: number };

const TICKS_PER_SECOND = 100;

export async function sampleProcess(pid: number): Promise<ProcSample> {
  const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/status`, 'utf8')]);
  // Fields after the command name (which may hold spaces) start at ")": utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssBytes: rssKb * 1024 };
}

/**
 * CPU time of this process's children that have ended and been waited for (cutime + cstime in
 * /proc/self/stat): the kernel adds a child's whole CPU time there when it is reaped, start-up included.
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN; // not Linux: the rows that need it say so
  }
}
