import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { kbsyncBin } from './cli.js';

/**
 * Runs the CLI under a pseudo-terminal with util-linux `script`, as a person at a terminal runs it:
 * stdout and stderr are both the terminal (isTTY), unless `stdoutFile` sends stdout to a file (a
 * terminal with `> report.txt`). What the terminal received, escape sequences included, is `screen`'s input.
 */
export const ptyAvailable = (): boolean => spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export type PtyRun = {
  readonly child: ChildProcess;
  /** Everything written to the terminal so far. */
  output(): string;
  /** Types into the terminal (`\x03` is Ctrl+C: the terminal sends SIGINT to the command). */
  type(text: string): void;
  /** Resolves with the command's exit code (script -e passes it on; a signal is 128 + its number). */
  readonly done: Promise<number | null>;
};

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export function runInPty(args: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string | undefined>; readonly stdoutFile?: string }): PtyRun {
  const command = [process.execPath, kbsyncBin, ...args].map(quote).join(' ') + (options.stdoutFile ? ` > ${quote(options.stdoutFile)}` : '');
  // -q no banner, -f flush at once (streaming is what is tested), -e the command's exit code, -c the command.
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...process.env, KBSYNC_LOG_LEVEL: 'warn', TERM: 'xterm', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { child, output: () => output, type: (text) => child.stdin.write(text), done };
}

/** The escape sequences a status line may use: erase the line. Colours (SGR) are checked apart. */
const ERASE_LINE = '\x1b[2K';
const SGR = /\x1b\[[0-9;]*m/g; // eslint-disable-line no-control-regex -- escape sequences are what is parsed

/**
 * What a person sees once the output has been drawn: a tiny terminal that knows carriage return,
 * newline and erase-line, which is all kbsync may use. Any other escape sequence (a saved cursor
 * restored, the cursor moved up) is garbage for this purpose and is returned in `unexpected`.
 */
export function screen(raw: string): { readonly lines: string[]; readonly unexpected: string[] } {
  const text = raw.replace(SGR, '');
  const lines: string[] = [''];
  const unexpected: string[] = [];
  let column = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    const row = lines.length - 1;
    if (text.startsWith(ERASE_LINE, i)) {
      lines[row] = '';
      i += ERASE_LINE.length - 1;
    } else if (char === '\x1b') {
      unexpected.push(JSON.stringify(text.slice(i, i + 6)));
    } else if (char === '\r') column = 0;
    else if (char === '\n') {
      lines.push('');
      column = 0;
    } else {
      const line = lines[row] as string;
      lines[row] = line.slice(0, column).padEnd(column) + char + line.slice(column + 1);
      column += 1;
    }
  }
  if (lines.at(-1) === '') lines.pop();
  return { lines, unexpected };
}
