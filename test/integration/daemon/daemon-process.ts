import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { kbsyncBin } from '../../helpers/cli.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';

export type LogLine = { level: number; msg: string; [key: string]: unknown };

/** A `kbsync watch` child process with its JSON log lines, for the daemon tests. */
export type Daemon = {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  readonly logs: LogLine[];
  /** Raw stderr (non-JSON lines too). */
  stderr(): string;
  /** Resolves with the first log line matching, waiting up to timeoutMs. */
  waitForLog(match: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (or signal name). */
  exited(): Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
  /** SIGKILL if still running; always called by the tests' cleanup. */
  dispose(): Promise<void>;
};

/** `f`: a sync fixture, or any folder set up like one (the soak's machines). */
export function startDaemon(f: Pick<SyncFixture, 'configPath' | 'dir' | 'env'>, env: Record<string, string> = {}, args: readonly string[] = []): Daemon {
  const child = spawn(process.execPath, [kbsyncBin, 'watch', '--config', f.configPath, ...args], {
    cwd: f.dir,
    env: { ...process.env, KBSYNC_LOG_LEVEL: 'debug', ...f.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let stderr = '';
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
  });
  child.stdout.resume();
  const exit = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let done = false;
  void exit.then(() => (done = true));
  return {
    child,
    pid: child.pid ?? -1,
    logs,
    stderr: () => stderr,
    async waitForLog(match, what, timeoutMs = HANG_GUARD_MS) {
      let found: LogLine | undefined;
      await waitUntil(() => (found = logs.find(match)) !== undefined || done, what, timeoutMs);
      if (!found) throw new Error(`the daemon exited before logging ${what}; stderr:\n${stderr}`);
      return found;
    },
    exited: () => exit,
    kill: (signal) => void child.kill(signal),
    async dispose() {
      if (!done) child.kill('SIGKILL');
      await exit;
    },
  };
}

/**
 * How long a wait goes on before it counts as a hang. Two minutes: every wait's condition comes, the limit only
 * turns a hang into a failure that names what was awaited. At load 40 on 2 cores a daemon's first full cycle took
 * more than the 20 s this once was (remote.test.ts failed so in a full run, issue 48).
 */
const HANG_GUARD_MS = 120_000;

/** Polls `check` every 50 ms until it holds; fails after timeoutMs naming what was awaited. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = HANG_GUARD_MS): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const isWatching = (line: LogLine): boolean => line.msg.startsWith('watching ');
/** The first full cycle is done (its debug summary line). */
export const firstSweepDone = (line: LogLine): boolean => line.msg.startsWith('sweep cycle done');

/** The state line the first cycle ends with: that cycle, and what it keeps of what it said, are done. */
export const startedUp = (line: LogLine): boolean => /^(in step|synced) with /.test(line.msg);

/** Runs `fn` with a daemon that has finished its first full cycle; always stops it. */
export async function withDaemon(f: SyncFixture, env: Record<string, string>, fn: (d: Daemon) => Promise<void>): Promise<void> {
  const d = startDaemon(f, env);
  try {
    await d.waitForLog(firstSweepDone, 'the first full cycle');
    await fn(d);
  } finally {
    await d.dispose();
  }
}

/**
 * One daemon's life in a test of what it says across restarts: started on `f`; `fn` run once the line `until.at` waits
 * for is logged (the start-up line by default), and given it; then stopped as `until.stop` says (SIGTERM: cleanly, exit
 * 0; SIGKILL: killed at once; none: stopped on disposal). Always disposed of; its log lines stay readable after.
 */
export async function daemonLife(
  f: Pick<SyncFixture, 'configPath' | 'dir' | 'env'>,
  until: { readonly what: string; readonly at?: (line: LogLine) => boolean; readonly stop?: 'SIGTERM' | 'SIGKILL' },
  fn: (d: Daemon, line: LogLine) => Promise<void> = async () => undefined,
): Promise<Daemon> {
  const d = startDaemon(f);
  try {
    await fn(d, await d.waitForLog(until.at ?? startedUp, until.what));
    if (until.stop !== undefined) d.kill(until.stop);
    if (until.stop === 'SIGTERM') assert.equal(await d.exited(), 0, 'a clean stop');
    else if (until.stop === 'SIGKILL') await d.exited();
  } finally {
    await d.dispose();
  }
  return d;
}

/**
 * A colleague's document and `mine.md`, both synced in minutes now over; then the colleague's file deleted here: a
 * document kbsync did not make, so its delete is held until a person says so.
 */
export async function colleagueFileDeleted(f: SyncFixture): Promise<void> {
  f.em.admin.createDocument({ name: 'Colleague', markdown: '# Colleague\n\nTheir page.\n' });
  await f.write('mine.md', '# Mine\n\nMine.\n');
  assert.equal((await f.sync()).code, 0);
  f.em.admin.setClockOffset(120_000);
  assert.equal((await f.sync()).code, 0);
  await f.remove('Colleague.md');
}
