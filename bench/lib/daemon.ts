import { fileURLToPath } from 'node:url';
import { startBackground, type Background } from './proc.js';
import { kbsyncBin, type Site } from './site.js';

/** One JSON log line of the daemon (pino): time in epoch ms, msg, and the fields it logged. */
export type LogEntry = { readonly time: number; readonly msg: string; readonly [field: string]: unknown };

/**
 * `kbsync watch` as a user starts it, with JSON logs at debug level so the benchmark can see each
 * cycle end (and the polling plan) without asking the daemon anything.
 */
export type Daemon = {
  readonly pid: number;
  readonly process: Background;
  entries(): LogEntry[];
  /** Resolves with the first entry after the first `after` entries that `match` accepts. */
  waitForEntry(match: (entry: LogEntry) => boolean, timeoutMs: number, after?: number): Promise<LogEntry>;
  stop(): Promise<void>;
};

export function startDaemon(site: Site): Daemon {
  const child = startBackground(process.execPath, [kbsyncBin, 'watch', '--json-logs', '--config', site.configPath], {
    cwd: site.dir,
    env: { KBSYNC_LOG_LEVEL: 'debug' },
  });
  const entries = (): LogEntry[] =>
    child
      .output()
      .split('\n')
      .flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as LogEntry];
        } catch {
          return []; // a line still being written
        }
      });
  return {
    pid: child.pid,
    process: child,
    entries,
    async waitForEntry(match, timeoutMs, after = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = entries().slice(after).find(match);
        if (found) return found;
        if (child.child.exitCode !== null || child.child.signalCode !== null) throw new Error(`kbsync watch exited:\n${child.output().slice(-3000)}`);
        if (Date.now() > deadline) throw new Error(`kbsync watch did not log what was awaited within ${timeoutMs} ms:\n${child.output().slice(-3000)}`);
        await sleep(20);
      }
    },
    stop: () => child.stop(15_000),
  };
}

export const isSweepDone = (entry: LogEntry): boolean => entry.msg.startsWith('sweep cycle done');
export const isWatching = (entry: LogEntry): boolean => entry.msg.startsWith('watching ');

/**
 * The bare minimum of watching a tree: a node process holding only the folder watch kbsync uses
 * (dist/local/dir-watch.js: one fs.watch per folder), skipping dot-folders, and nothing else.
 */
export function startBareWatcher(root: string): Background {
  const source = `
import { watchTree } from ${JSON.stringify(new URL('../../dist/local/dir-watch.js', import.meta.url).href)};
const watch = await watchTree(${JSON.stringify(root)}, () => {}, { skipDir: (rel) => /(^|\\/)\\.[^/]*$/.test(rel) });
console.log('ready');
process.on('SIGTERM', () => watch.unsubscribe().then(() => process.exit(0)));
`;
  return startBackground(process.execPath, ['--input-type=module', '-e', source], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
