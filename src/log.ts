import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { redact } from './secrets.js';
import { terminal, type Terminal } from './terminal.js';

export type { Logger };

export type LogOptions = {
  readonly level?: string;
  /** Readable lines for a person on a terminal; JSON lines for journald, CI and log shippers. */
  readonly pretty?: boolean;
  readonly destination?: NodeJS.WritableStream;
  /** Where lines go when no destination is given (default: the process's terminal, on stderr). */
  readonly terminal?: Terminal;
};

type Prettify = (line: string) => string;

/**
 * pino-pretty, run in this thread: as a transport it would write to fd 2 from a worker thread, past the
 * terminal's status line, which then overwrote it. Loaded only when a person reads the log (it is not
 * needed, and not paid for, in scripts, CI and journald).
 */
function prettifier(color: boolean, detailed: boolean): Prettify {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as { prettyFactory: (options: object) => Prettify };
  return prettyFactory({
    colorize: color,
    ignore: 'pid,hostname',
    translateTime: 'HH:MM:ss',
    // One line per event for a person (the message says it all, and ends with its code); the fields
    // under it (path, action, endpoint…) only at debug, where they are what was asked for.
    hideObject: !detailed,
    messageFormat: (log: Record<string, unknown>, key: string) => `${String(log[key] ?? '')}${!detailed && typeof log['code'] === 'string' ? ` [${log['code']}]` : ''}`,
  });
}

/** The process logger. Logs go to stderr so that stdout stays clean for --json reports. */
export function createLogger(options: LogOptions = {}): Logger {
  const out = options.terminal ?? terminal;
  const pretty = options.pretty ?? out.live;
  const level = options.level ?? process.env['KBSYNC_LOG_LEVEL'] ?? 'info';
  const hooks = {
    // Scrub secrets from every message and its arguments before pino formats them.
    logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
      method.apply(this, args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)));
    },
  };
  const formatters = { log: (object: Record<string, unknown>) => JSON.parse(redact(JSON.stringify(object))) as Record<string, unknown> };
  if (options.destination) return pino({ level, hooks, formatters, base: { pid: process.pid } }, options.destination);
  const format = pretty ? prettifier(out.color, level === 'debug' || level === 'trace') : (line: string) => line;
  // Through the terminal, so a log line is never drawn over (or under) a progress line.
  const destination = { write: (line: string) => out.err(format(line)) };
  return pino({ level, hooks, formatters, base: pretty ? {} : { pid: process.pid } }, destination);
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
