import { createRequire } from 'node:module';
import type { LogFn, Logger as PinoLogger, LoggerOptions } from 'pino';
import { InputError } from './errors.js';
import { oneLine, printableLine } from './printable.js';
import { redact } from './secrets.js';
import { invocation } from './invocation.js';
import { terminal, type Terminal } from './terminal.js';

type Method = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** What kbsync asks of a logger: pino's methods and its level (a pino logger is one). */
export type Logger = Pick<PinoLogger, Method> & { level: string };

const LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
/** A level kbsync knows, or an error that names it (own keys only: "constructor" is not a level). */
function checkLevel(level: string): void {
  if (Object.hasOwn(LEVELS, level)) return;
  throw new InputError('CONFIG_INVALID', `Unknown log level ${JSON.stringify(level)}.`, {
    hint: `Use one of ${Object.keys(LEVELS).join(', ')} (log.level in the config, or KBSYNC_LOG_LEVEL).`,
  });
}

// For what is loaded only when needed (pino, pino-pretty): CommonJS packages, required in this module's place.
const require = createRequire(import.meta.url);

/**
 * pino is made when the first line at an enabled level is logged: loading it and its dependencies is about
 * a tenth of a no-op sync's whole run, which at the default level (warn, for `sync`) usually logs nothing.
 * Lines are pino's own from then on, formatted and redacted alike.
 */
function lazyLogger(level: string, make: (level: string) => PinoLogger): Logger {
  // An unknown level fails at once, not at the first line.
  checkLevel(level);
  let current = level;
  let real: PinoLogger | undefined;
  const method = (name: Method): LogFn =>
    ((...args: Parameters<LogFn>) => {
      if ((LEVELS[name] ?? 0) < (LEVELS[current] ?? 0)) return;
      real ??= make(current);
      real[name](...args);
    }) as LogFn;
  return {
    get level() {
      return current;
    },
    set level(next: string) {
      checkLevel(next);
      current = next;
      if (real) real.level = next;
    },
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
  };
}

const pino = (options: LoggerOptions, destination?: NodeJS.WritableStream | { write(line: string): void }): PinoLogger =>
  (require('pino') as (options: LoggerOptions, destination?: unknown) => PinoLogger)(options, destination);

type LogOptions = {
  readonly level?: string;
  /** Readable lines for a person on a terminal; JSON lines for journald, CI and log shippers. */
  readonly pretty?: boolean;
  readonly destination?: NodeJS.WritableStream;
  /** Where lines go when no destination is given (default: the process's terminal, on stderr). */
  readonly terminal?: Terminal;
};

type Prettify = (record: string | Record<string, unknown>) => string;

/**
 * A log record's text made printable before pino-pretty lays it out (and colours it): every value one line
 * (the message keeps its tabs), so the only line breaks are the ones pino-pretty makes. JSON lines need none
 * of this (JSON escapes control characters), but pino-pretty prints the values raw.
 */
function printableRecord(line: string): Record<string, unknown> {
  const clean = (value: unknown, key: string): unknown => {
    if (typeof value === 'string') return key === 'msg' ? printableLine(value) : oneLine(value);
    if (Array.isArray(value)) return value.map((item) => clean(item, ''));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [oneLine(k), clean(v, k)]));
    return value;
  };
  return clean(JSON.parse(line), '') as Record<string, unknown>;
}

/**
 * pino-pretty, run in this thread: as a transport it would write to fd 2 from a worker thread, past the
 * terminal's status line, which then overwrote it. Loaded only when a person reads the log (it is not
 * needed, and not paid for, in scripts, CI and journald).
 */
function prettifier(color: boolean, detailed: boolean): Prettify {
  const { prettyFactory } = require('pino-pretty') as { prettyFactory: (options: object) => Prettify };
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
  const level = options.level ?? invocation().env['KBSYNC_LOG_LEVEL'] ?? 'info';
  const hooks = {
    // Scrub secrets from every message and its arguments before pino formats them.
    logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
      method.apply(this, args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)));
    },
  };
  const formatters = { log: (object: Record<string, unknown>) => JSON.parse(redact(JSON.stringify(object))) as Record<string, unknown> };
  const { destination } = options;
  if (destination) return lazyLogger(level, (now) => pino({ level: now, hooks, formatters, base: { pid: process.pid } }, destination));
  return lazyLogger(level, (now) => {
    const format = pretty ? prettifier(out.color, now === 'debug' || now === 'trace') : undefined;
    // Through the terminal, so a log line is never drawn over (or under) a progress line.
    // pino ends each JSON line with its line break: the terminal prints the line, and its own.
    const write = format ? (line: string) => out.log(format(printableRecord(line))) : (line: string) => out.err(line.replace(/\n$/, ''));
    return pino({ level: now, hooks, formatters, base: pretty ? {} : { pid: process.pid } }, { write });
  });
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = lazyLogger('silent', (level) => pino({ level }));
