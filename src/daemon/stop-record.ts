import type { JsonValue, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { clockTime } from './wait-words.js';

/** Ledger meta key of the daemon's last start and stop: the next start says why the last one stopped. */
const STOP_KEY = 'daemon.stop';

/**
 * Why the daemon stops: `name` heads the line that says it is stopping, `why` is said in its last line and kept
 * in the ledger; `clean`: a stop asked for (a signal), no news at the next start.
 */
export type StopCause = { readonly name: string; readonly why: string; readonly clean: boolean; readonly exitCode: number };

type StopRecord = { readonly pid: number; readonly startedAt: number; readonly stoppedAt: number | null; readonly why: string | null; readonly clean: boolean };

function readRecord(value: JsonValue | undefined): StopRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { pid, startedAt, stoppedAt, why, clean } = value as Readonly<Record<string, JsonValue>>;
  if (typeof pid !== 'number' || typeof startedAt !== 'number') return undefined;
  return { pid, startedAt, stoppedAt: typeof stoppedAt === 'number' ? stoppedAt : null, why: typeof why === 'string' ? why : null, clean: clean === true };
}

/**
 * At start: says why the last daemon of this folder stopped (a stop whose own last line was lost with its log
 * stream, or one killed without a word, is said nowhere else), then records this start. A clean stop (a
 * signal) is no news: debug only.
 */
export function recordStart(ledger: Ledger, logger: Logger, now: number): void {
  const last = readRecord(ledger.meta.get(STOP_KEY));
  if (last && last.pid !== process.pid) {
    const who = `the last kbsync watch here (pid ${last.pid})`;
    if (last.stoppedAt === null || last.why === null) {
      logger.warn({ pid: last.pid, startedAt: new Date(last.startedAt).toISOString() }, `${who} ended without saying why: it was killed (SIGKILL, an out-of-memory killer) or the machine went down; what it left unfinished is finished now`);
    } else {
      logger[last.clean ? 'debug' : 'warn']({ pid: last.pid, stoppedAt: new Date(last.stoppedAt).toISOString() }, `${who} stopped at ${clockTime(last.stoppedAt, now)}: ${last.why}`);
    }
  }
  write(ledger, { pid: process.pid, startedAt: now, stoppedAt: null, why: null, clean: false });
}

/** Records why this daemon stops, before its ledger closes. */
export function recordStop(ledger: Ledger, cause: StopCause, now: number): void {
  const last = readRecord(ledger.meta.get(STOP_KEY));
  write(ledger, { pid: process.pid, startedAt: last?.pid === process.pid ? last.startedAt : now, stoppedAt: now, why: cause.why, clean: cause.clean });
}

function write(ledger: Ledger, record: StopRecord): void {
  ledger.meta.set(STOP_KEY, { ...record });
}
