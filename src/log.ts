import pino, { type Logger } from 'pino';
import { redact } from './secrets.js';

export type { Logger };

export type LogOptions = {
  readonly level?: string;
  /** Readable lines for a person on a terminal; JSON lines for journald, CI and log shippers. */
  readonly pretty?: boolean;
  readonly destination?: NodeJS.WritableStream;
};

/** The process logger. Logs go to stderr so that stdout stays clean for --json reports. */
export function createLogger(options: LogOptions = {}): Logger {
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  const level = options.level ?? process.env['KBSYNC_LOG_LEVEL'] ?? 'info';
  const hooks = {
    // Scrub secrets from every message and its arguments before pino formats them.
    logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
      method.apply(this, args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)));
    },
  };
  const formatters = { log: (object: Record<string, unknown>) => JSON.parse(redact(JSON.stringify(object))) as Record<string, unknown> };
  if (pretty && !options.destination) {
    return pino({
      level,
      hooks,
      formatters,
      transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' } },
    });
  }
  return pino({ level, hooks, formatters, base: { pid: process.pid } }, options.destination ?? pino.destination(2));
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
