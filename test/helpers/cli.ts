import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCommandLine } from '../../src/cli/command-line.js';
import type { Invocation } from '../../src/invocation.js';
import { useMarkdownDialect } from '../../src/markdown/parse.js';

/** The compiled CLI, exactly as `npx kbsync` runs it (npm test builds it first). */
export const kbsyncBin = fileURLToPath(new URL('../../bin/kbsync.js', import.meta.url));

export type CliResult = { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string };

export type RunOptions = {
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
  readonly input?: string;
  readonly timeoutMs?: number;
  /** Called with the child once it runs, so a test can send it a signal mid-run (the command runs in a process). */
  readonly onSpawn?: (child: ChildProcess) => void;
  /** Run the command in a process of its own even when this process could run it (see needsProcess). */
  readonly process?: boolean;
};

/**
 * Knobs that src reads from the environment once, when a module loads (crash points, the state documents'
 * size and grace): a command given one needs a fresh process to see it.
 */
export const PROCESS_KNOBS = ['KBSYNC_CRASH_AT', 'KBSYNC_STATE_DOC_CHARS', 'KBSYNC_STATE_GRACE_MS'] as const;

/**
 * Commands run in this process (runCommandLine, what bin/kbsync.js runs, with their own environment,
 * folder and streams) unless they need one of their own: a test that signals it, a command that runs until
 * it is stopped (watch, the emulator), a knob read at load, or a test that asks. A `kbsync` process costs
 * 0.15–0.25 s of CPU to start, more than most commands; the suite ran about a thousand of them.
 * The launcher itself (bin/kbsync.js, the bundle and its code cache) is tested on its own: code-cache.test.ts,
 * pack-install.test.ts, signals.test.ts and the daemon's tests start real processes.
 */
const needsProcess = (args: readonly string[], options: RunOptions): boolean =>
  Boolean(options.process || options.onSpawn) || args[0] === 'watch' || args[0] === 'emulator' || PROCESS_KNOBS.some((knob) => (options.env?.[knob] ?? '') !== '');

/** Runs `kbsync <args>` and collects its output. Never throws on a non-zero exit. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return needsProcess(args, options) ? runCliProcess(args, options) : runCliHere(args, options);
}

/** The environment a child would get: this process's, the log level at warn, then the test's (undefined unsets). */
function environment(options: RunOptions): NodeJS.ProcessEnv {
  const merged: Record<string, string | undefined> = { ...process.env, KBSYNC_LOG_LEVEL: 'warn', ...options.env };
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** A stream that keeps what is written to it. */
function collector(): { readonly stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

async function runCliHere(args: readonly string[], options: RunOptions): Promise<CliResult> {
  const stdout = collector();
  const stderr = collector();
  const given: Invocation = {
    env: environment(options),
    cwd: options.cwd ?? process.cwd(),
    stdin: Readable.from([options.input ?? '']),
    stdout: stdout.stream,
    stderr: stderr.stream,
    exitCode: undefined,
  };
  let exited: string | undefined;
  const exit = (code: number): never => {
    exited = `kbsync ${args.join(' ')} ended its process at once (exit ${code}): run it with { process: true }`;
    throw new Error(exited);
  };
  const code = await runCommandLine([process.execPath, kbsyncBin, ...args], given, exit).finally(processDefaults);
  if (exited) throw new Error(exited);
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * What a run in this process leaves set for its folder goes back to a new process's: the Markdown dialect (a note
 * vault's run reads wiki syntax), which a test file sharing this process would otherwise parse its texts in (the
 * merge's unit tests, after the vault tests: a placeholder taken for a comment, written twice).
 */
export function processDefaults(): void {
  useMarkdownDialect('gfm');
}

/** Runs `kbsync <args>` in a child process, as a user's shell does. */
export function runCliProcess(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kbsyncBin, ...args], {
      cwd: options.cwd,
      env: environment(options),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    options.onSpawn?.(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
