import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The compiled CLI, exactly as `npx kbsync` runs it (npm test builds it first). */
export const kbsyncBin = fileURLToPath(new URL('../../bin/kbsync.js', import.meta.url));

export type CliResult = { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string };

export type RunOptions = {
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
  readonly input?: string;
  readonly timeoutMs?: number;
  /** Called with the child once it runs, so a test can send it a signal mid-run. */
  readonly onSpawn?: (child: ChildProcess) => void;
};

/** Runs `kbsync <args>` in a child process and collects its output. Never throws on a non-zero exit. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kbsyncBin, ...args], {
      cwd: options.cwd,
      env: { ...process.env, KBSYNC_LOG_LEVEL: 'warn', ...options.env },
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
