import { spawn } from 'node:child_process';
import { commandEnv } from '../secrets.js';

type CommandRun = {
  /** The command line, run by `/bin/sh -c` like a git hook, so users can write pipes and variables. */
  readonly command: string;
  /** `$1`, `$2`… inside the command (`$0` is `name`). */
  readonly args?: readonly string[];
  readonly name?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly cwd?: string;
  /** Keep what it prints (at most this many characters of each stream's end). */
  readonly keepChars?: number;
  /** Aborted when kbsync stops: the command is stopped then, like one that ran too long. */
  readonly signal?: AbortSignal;
};

type CommandOutcome =
  | { readonly ok: true; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly failure: string; readonly stdout: string; readonly stderr: string };

/**
 * Runs a user's command (notify, image upload, diagram render) and says how it ended, never throwing. A
 * command that outlives `timeoutMs`, or is still running when kbsync stops, is killed with its whole process
 * group: a script that started a `sleep` or an upload client must not leave it running, nor hold kbsync
 * waiting on its output pipe. It runs without kbsync's secrets in its environment (commandEnv).
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  const keep = run.keepChars ?? 500;
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', run.command, run.name ?? 'kbsync', ...(run.args ?? [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: commandEnv(run.env),
      detached: true,
      ...(run.cwd ? { cwd: run.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-keep);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-keep);
    });
    let settled = false;
    const settle = (failure: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', stop);
      resolve(failure === undefined ? { ok: true, stdout, stderr } : { ok: false, failure, stdout, stderr });
    };
    const timer = setTimeout(() => {
      killGroup(child.pid);
      settle(`it did not finish within ${run.timeoutMs} ms and was stopped`);
    }, run.timeoutMs);
    const stop = (): void => {
      killGroup(child.pid);
      settle('it was stopped because kbsync is stopping');
    };
    if (run.signal?.aborted) stop();
    else run.signal?.addEventListener('abort', stop, { once: true });
    child.on('error', (error) => settle(error.message));
    child.on('close', (code, signal) => {
      const said = stderr.trim();
      settle(code === 0 ? undefined : `it exited with ${signal ?? `code ${String(code)}`}${said ? `: ${said}` : ''}`);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
