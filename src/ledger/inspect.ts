import { closeSync, existsSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { Database } from './sqlite.js';
import { KbsyncError, SafetyError } from '../errors.js';
import { LEDGER_APPLICATION_ID, LEDGER_SCHEMA_VERSION } from './migrations.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const SQLITE_HEADER_SIZE = 100;
const SIDE_FILES = ['-wal', '-shm'] as const;

/** What an existing ledger file looks like before kbsync writes anything to it. */
type Inspection = { readonly exists: false } | { readonly exists: true; readonly userVersion: number };

type InspectOptions = {
  /**
   * The previous holder of the lock died without releasing it: check the whole file, whatever it looks like.
   * Without it, the full check runs only when `integrityCheckReason` finds a reason.
   */
  readonly uncleanShutdown?: boolean;
  /** Leave the folder as found also when the file is sound (a dry run): the side files the check made go too. */
  readonly leaveAsFound?: boolean;
};

/**
 * Checks an existing ledger through a read-only connection so that a damaged, foreign or newer file is
 * refused before a single byte of it changes: a wrong guess here could lose the user's sync history.
 * An empty file (left by a crash right after creating it) counts as a new ledger.
 */
export function inspectLedgerFile(path: string, options: InspectOptions = {}): Inspection {
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
  if (size < SQLITE_HEADER_SIZE) throw corrupt(path, 'it is not a SQLite database');
  const header = readHeader(path);
  if (!header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) throw corrupt(path, 'it is not a SQLite database');
  const reason = options.uncleanShutdown ? 'the last kbsync using it did not close it' : integrityCheckReason(path, header, size);
  return checkWithSqlite(path, reason, options.leaveAsFound === true);
}

/**
 * Why the next open must read the whole ledger (PRAGMA quick_check), or null when a clean close left it as
 * it is: a full check reads every page (150-170 ms at 50,000 documents) and used to run on every open,
 * though only a crash, a partial copy or a truncation can leave damage SQLite would not report by itself.
 * - a write-ahead log with content: SQLite folds it in and removes it when the last connection closes
 *   cleanly, so one left behind means a process was killed or the machine stopped mid-run;
 * - a size that is not the page count the header records (a truncated or half-copied file).
 * An older schema (a migration follows) is checked too, in `checkWithSqlite`, which reads the version.
 */
export function integrityCheckReason(path: string, header: Buffer = readHeader(path), size = statSync(path).size): string | null {
  try {
    if (statSync(`${path}-wal`).size > 0) return 'a write-ahead log was left by a run that did not close';
  } catch {
    // no log: the usual case after a clean close
  }
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  const pages = header.readUInt32BE(28);
  // The header's page count is valid only when written by the same change as the change counter (SQLite's file format, 1.3.7).
  const countValid = pages > 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
  if (!countValid || pageSize < 512 || pages * pageSize !== size) return 'its size does not match its header';
  return null;
}

function checkWithSqlite(path: string, reason: string | null, leaveAsFound: boolean): Inspection {
  const sideFilesBefore = SIDE_FILES.filter((suffix) => existsSync(path + suffix));
  let ok = false;
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const userVersion = db.pragma('user_version', { simple: true }) as number;
    if (reason !== null || userVersion < LEDGER_SCHEMA_VERSION) {
      const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check);
      if (problems.length !== 1 || problems[0] !== 'ok') throw corrupt(path, `SQLite's check found: ${problems.slice(0, 3).join('; ')}`);
    }
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
    if (!ok || leaveAsFound) for (const suffix of SIDE_FILES) if (!sideFilesBefore.includes(suffix)) removeIfEmpty(path + suffix, suffix);
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

function readHeader(path: string): Buffer {
  const head = Buffer.alloc(SQLITE_HEADER_SIZE);
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
