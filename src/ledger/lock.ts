import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { SafetyError } from '../errors.js';
import type { Logger } from '../log.js';
import { redact } from '../secrets.js';
import { isProcessAlive } from './process-alive.js';
import type { LockHolder } from './types.js';

type LockFile = LockHolder & { readonly token: string };

/** What `readLockHolder` reports; `alive` is true when the holder runs, or cannot be checked (another host). */
export type LockStatus = LockHolder & { readonly alive: boolean };

/** The lock file that keeps two processes from using one ledger: `<ledger file>.lock`, beside it. */
export const lockPathOf = (ledgerPath: string): string => `${ledgerPath}.lock`;

/** Who holds the ledger at `ledgerPath`, or null when nobody does (no lock file, or an unreadable one). */
export function readLockHolder(ledgerPath: string): LockStatus | null {
  const lock = readLock(lockPathOf(ledgerPath));
  if (!lock || lock === 'unreadable') return null;
  const { token: _token, ...holder } = lock;
  return { ...holder, alive: isHeld(lock) };
}

/** The lock of an open ledger; `release` removes the lock file only while it is still ours. */
export class LedgerLock {
  readonly #path: string;
  readonly #token: string;
  /** The lock was taken over from a process that died holding it: the ledger was not closed cleanly. */
  readonly tookOver: boolean;
  #released = false;

  constructor(path: string, token: string, tookOver = false) {
    this.#path = path;
    this.#token = token;
    this.tookOver = tookOver;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const lock = readLock(this.#path);
    if (lock && lock !== 'unreadable' && lock.token === this.#token) unlinkQuietly(this.#path);
  }
}

/**
 * Takes the ledger's lock or throws LEDGER_LOCKED naming the process that holds it.
 * A lock left by a process that no longer runs on this host (killed, crashed) is taken over with a warning.
 */
export function acquireLock(ledgerPath: string, logger: Logger): LedgerLock {
  const path = lockPathOf(ledgerPath);
  const mine: LockFile = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: Date.now(),
    command: commandLine(),
    token: randomUUID(),
  };
  // Each round either takes the lock, finds a live holder, or clears a stale lock; three rounds absorb races.
  let tookOver = false;
  for (let round = 0; round < 3; round += 1) {
    if (createExclusive(path, `${JSON.stringify(mine)}\n`)) return new LedgerLock(path, mine.token, tookOver);
    const raw = readRaw(path);
    if (raw === undefined) continue; // released between our attempt and our read
    const lock = parseLock(raw);
    if (lock !== 'unreadable' && isHeld(lock)) throw lockedError(ledgerPath, path, lock);
    logger.warn(
      { lockPath: path, stalePid: lock === 'unreadable' ? null : lock.pid },
      lock === 'unreadable'
        ? `ledger lock ${path} is unreadable; taking it over`
        : `ledger lock ${path} was left by pid ${lock.pid}, which no longer runs; taking it over`,
    );
    takeOver(path, raw, mine.token);
    tookOver = true;
  }
  const lock = readLock(path);
  throw lockedError(ledgerPath, path, lock && lock !== 'unreadable' ? lock : undefined);
}

function isHeld(lock: LockFile): boolean {
  return lock.hostname !== hostname() || isProcessAlive(lock.pid, lock.startedAt);
}

/**
 * Writes the whole content under a temporary name, then links it into place: readers never see half a lock.
 * Not fsync'd: a lock only matters while its process runs, and after a power loss none does. A lock the
 * crash left empty reads as unreadable and is taken over with a warning, like any stale lock.
 */
function createExclusive(path: string, content: string): boolean {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
}

/**
 * Moves a stale lock out of the way. Renaming first and checking what was moved means that when two
 * processes race to clear the same stale lock, the loser notices it moved the winner's fresh lock and puts it back.
 */
function takeOver(path: string, staleRaw: string, token: string): void {
  const aside = `${path}.stale-${token}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readRaw(aside) !== staleRaw) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone took the lock meanwhile; the next round reads whoever holds it now.
    }
  }
  unlinkQuietly(aside);
}

function readLock(path: string): LockFile | 'unreadable' | undefined {
  const raw = readRaw(path);
  return raw === undefined ? undefined : parseLock(raw);
}

function readRaw(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseLock(raw: string): LockFile | 'unreadable' {
  try {
    const value = JSON.parse(raw) as Partial<LockFile> | null;
    if (
      value &&
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.startedAt === 'number' &&
      typeof value.token === 'string'
    ) {
      return { pid: value.pid, hostname: value.hostname, startedAt: value.startedAt, command: String(value.command ?? ''), token: value.token };
    }
  } catch {
    // fall through: not JSON
  }
  return 'unreadable';
}

function lockedError(ledgerPath: string, lockPath: string, holder: LockFile | undefined): SafetyError {
  if (!holder) {
    return new SafetyError('LEDGER_LOCKED', `The ledger ${ledgerPath} is being locked and unlocked by other processes.`, {
      hint: 'Make sure only one kbsync uses this folder, then try again.',
    });
  }
  const since = new Date(holder.startedAt).toISOString();
  const who = `pid ${holder.pid}${holder.command ? ` (${holder.command})` : ''}, since ${since}`;
  if (holder.hostname !== hostname()) {
    return new SafetyError('LEDGER_LOCKED', `The ledger ${ledgerPath} is in use by ${who} on host ${holder.hostname}.`, {
      hint: `Stop kbsync on ${holder.hostname} first; if it is certainly no longer running there, delete ${lockPath} and try again.`,
    });
  }
  return new SafetyError('LEDGER_LOCKED', `The ledger ${ledgerPath} is in use by another kbsync process: ${who}.`, {
    hint: `Wait for it to finish or stop it (kill ${holder.pid}, or stop the kbsync service), then try again.`,
  });
}

/** What the holder was started as, for the message another process shows; secrets are masked. */
function commandLine(): string {
  const [, script, ...args] = process.argv;
  const line = [script ? basename(script) : basename(process.execPath), ...args].join(' ');
  return redact(line).slice(0, 200);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
