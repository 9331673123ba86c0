import { closeSync, existsSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import Database from 'better-sqlite3';
import { KbsyncError, SafetyError } from '../errors.js';
import { LEDGER_APPLICATION_ID, LEDGER_SCHEMA_VERSION } from './migrations.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const SQLITE_HEADER_SIZE = 100;
const SIDE_FILES = ['-wal', '-shm'] as const;

/** What an existing ledger file looks like before kbsync writes anything to it. */
export type Inspection = { readonly exists: false } | { readonly exists: true; readonly userVersion: number };

/**
 * Checks an existing ledger through a read-only connection so that a damaged, foreign or newer file is
 * refused before a single byte of it changes: a wrong guess here could lose the user's sync history.
 * An empty file (left by a crash right after creating it) counts as a new ledger.
 */
export function inspectLedgerFile(path: string): Inspection {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      throw new KbsyncError('LEDGER_OPEN_FAILED', `The ledger path ${path} exists but is not a file.`, {
        hint: 'Move whatever is there aside, or point kbsync at another ledger path.',
      });
    }
    size = stat.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    throw error;
  }
  if (size === 0) return { exists: true, userVersion: 0 };
  if (size < SQLITE_HEADER_SIZE || !readHead(path).equals(SQLITE_MAGIC)) throw corrupt(path, 'it is not a SQLite database');
  return checkWithSqlite(path);
}

function checkWithSqlite(path: string): Inspection {
  const sideFilesBefore = SIDE_FILES.filter((suffix) => existsSync(path + suffix));
  let ok = false;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check);
    if (problems.length !== 1 || problems[0] !== 'ok') throw corrupt(path, `SQLite's check found: ${problems.slice(0, 3).join('; ')}`);
    const userVersion = db.pragma('user_version', { simple: true }) as number;
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'`).get() as { n: number };
    if ((applicationId !== 0 && applicationId !== LEDGER_APPLICATION_ID) || (userVersion === 0 && tables.n > 0)) {
      throw new SafetyError('LEDGER_FOREIGN', `The file ${path} is a SQLite database, but not a kbsync ledger.`, {
        hint: 'kbsync will not change it. Point kbsync at another ledger path, or move that file aside.',
      });
    }
    if (userVersion > LEDGER_SCHEMA_VERSION) {
      throw new SafetyError(
        'LEDGER_TOO_NEW',
        `The ledger ${path} was written by a newer kbsync (schema ${userVersion}; this kbsync knows up to ${LEDGER_SCHEMA_VERSION}).`,
        { hint: 'Upgrade kbsync to the version that wrote it; this version will not touch it.' },
      );
    }
    ok = true;
    return { exists: true, userVersion };
  } catch (error) {
    if (error instanceof KbsyncError) throw error;
    if (isCorruption(error)) throw corrupt(path, (error as Error).message, error);
    throw new KbsyncError('LEDGER_OPEN_FAILED', `Could not read the ledger ${path}: ${(error as Error).message}.`, {
      hint: 'Check that the file and its folder are readable and writable by this user.',
      cause: error,
    });
  } finally {
    db?.close();
    // A refused ledger stays exactly as found: drop the empty side files the read-only check created.
    if (!ok) for (const suffix of SIDE_FILES) if (!sideFilesBefore.includes(suffix)) removeIfEmpty(path + suffix, suffix);
  }
}

export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

export function corrupt(path: string, why: string, cause?: unknown): SafetyError {
  return new SafetyError('LEDGER_CORRUPT', `The ledger ${path} is damaged (${why}); kbsync has not changed it.`, {
    hint: `Move it aside (e.g. mv "${path}" "${path}.broken") and run kbsync again: it re-adopts documents by title, without creating duplicates.`,
    cause,
  });
}

function readHead(path: string): Buffer {
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return head;
}

function removeIfEmpty(path: string, suffix: (typeof SIDE_FILES)[number]): void {
  try {
    // The -shm index is never empty once created; it holds nothing but a cache of the (empty) -wal.
    if (suffix === '-shm' || statSync(path).size === 0) unlinkSync(path);
  } catch {
    // not created
  }
}
