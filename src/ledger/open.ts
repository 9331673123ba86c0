import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Database } from './sqlite.js';
import { InputError, KbsyncError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { corrupt, inspectLedgerFile, isCorruption } from './inspect.js';
import { Ledger } from './ledger.js';
import { type LedgerLock, acquireLock } from './lock.js';
import { LEDGER_SCHEMA_VERSION, migrate } from './migrations.js';

export type LedgerOptions = {
  /** Take the exclusive lock (default true). Only tests and single-process tools should turn it off. */
  readonly lock?: boolean;
  /** Open for reading only (`kbsync status`): no lock, no migration, no writes; the file must exist. */
  readonly readonly?: boolean;
  readonly logger?: Logger;
};

/**
 * Opens (creating if needed) the ledger at `path`. In order: the folder is created private (0700), the lock is
 * taken, the existing file is checked read-only (damaged, foreign or newer files are refused untouched), a new
 * file is created private (0600), then WAL mode and the migrations are applied.
 */
export function openLedger(path: string, options: LedgerOptions = {}): Ledger {
  if (typeof path !== 'string' || path === '') {
    throw new InputError('LEDGER_PATH', `The ledger path must be a non-empty string (got ${JSON.stringify(path)}).`, {
      hint: 'Set the ledger path in the config, or leave it out to use the default.',
    });
  }
  const file = resolve(path);
  const logger = options.logger ?? silentLogger;
  if (options.readonly) return openReadonly(file, logger);

  let lock: LedgerLock | undefined;
  try {
    createPrivateFolder(dirname(file));
    lock = options.lock === false ? undefined : acquireLock(file, logger);
  } catch (error) {
    throw asOpenError(file, error);
  }
  let db: Database | undefined;
  try {
    if (!inspectLedgerFile(file, { uncleanShutdown: lock?.tookOver ?? false }).exists) createPrivateFile(file);
    db = new Database(file, { fileMustExist: true });
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') logger.warn({ ledger: file, mode }, `the ledger's file system does not support WAL; using journal mode ${String(mode)}`);
    // FULL: an intent must survive a power cut, or a create whose answer was lost could be repeated.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    // A ledger that opens but cannot be written (a read-only file, an immutable attribute) would fail at the
    // first intent, mid-run: find out now, with one write that changes nothing.
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
    return new Ledger(db, file, lock, logger);
  } catch (error) {
    db?.close();
    lock?.release();
    throw asOpenError(file, error);
  }
}

function openReadonly(file: string, logger: Logger): Ledger {
  const inspection = inspectLedgerFile(file);
  if (!inspection.exists) {
    throw new KbsyncError('LEDGER_MISSING', `There is no ledger at ${file}.`, {
      hint: 'Nothing has been synced with this configuration yet: run `kbsync sync` first.',
    });
  }
  if (inspection.userVersion < LEDGER_SCHEMA_VERSION) {
    throw new KbsyncError('LEDGER_OUTDATED', `The ledger ${file} uses schema ${inspection.userVersion}; this kbsync reads ${LEDGER_SCHEMA_VERSION}.`, {
      hint: 'Run `kbsync sync` once to upgrade it, then try again.',
    });
  }
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return new Ledger(db, file, undefined, logger);
  } catch (error) {
    db?.close();
    throw asOpenError(file, error);
  }
}

/**
 * A private copy of the ledger at `path`, in memory (an empty, migrated one when there is none), for a dry run:
 * the run records what it learns (the workspace, its root) as a real run would, and nothing reaches the disk:
 * no folder, no file, no lock. The file, when there is one, is checked as any open checks it (a damaged,
 * foreign or newer one is refused), and read in one consistent snapshot beside any process that holds it.
 */
export function openLedgerSnapshot(path: string, logger: Logger = silentLogger): Ledger {
  const file = resolve(path);
  let db: Database | undefined;
  try {
    if (inspectLedgerFile(file, { leaveAsFound: true }).exists) {
      const image = ledgerImage(file);
      // The file is in WAL mode (header bytes 18-19 = 2), which an in-memory database cannot open: the image
      // says rollback journal (1) instead (SQLite's file format, 1.3.4). The pages are the same.
      image[18] = 1;
      image[19] = 1;
      db = new Database(image);
    } else db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return new Ledger(db, file, undefined, logger);
  } catch (error) {
    db?.close();
    throw asOpenError(file, error);
  }
}

/**
 * The ledger's pages. After a clean close they are all in the file, read as bytes: opening it with SQLite, even
 * read-only, would leave -wal and -shm files beside it. A write-ahead log with content (a process holds the
 * ledger, or one was killed) has the latest pages: SQLite reads them in, beside the files already there.
 */
function ledgerImage(file: string): Buffer {
  if (sizeOrZero(`${file}-wal`) === 0) return readFileSync(file);
  const source = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return source.serialize();
  } finally {
    source.close();
  }
}

function sizeOrZero(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Opens the ledger for writing without taking its lock, beside the process that holds it (a running
 * `kbsync watch`), for `kbsync resolve` to record a person's answers (releases) and nothing else. The file must
 * exist and be exactly this kbsync's schema: it is never migrated under a process that holds it, nor
 * written by a kbsync that does not know every table.
 */
export function openLedgerBeside(path: string, logger: Logger = silentLogger): Ledger {
  const file = resolve(path);
  const inspection = inspectLedgerFile(file);
  if (!inspection.exists) {
    throw new KbsyncError('LEDGER_MISSING', `There is no ledger at ${file}.`, { hint: 'Nothing has been synced with this configuration yet: run `kbsync sync` first.' });
  }
  if (inspection.userVersion !== LEDGER_SCHEMA_VERSION) {
    const older = inspection.userVersion < LEDGER_SCHEMA_VERSION;
    throw new KbsyncError(older ? 'LEDGER_OUTDATED' : 'LEDGER_TOO_NEW', `The ledger ${file} uses schema ${inspection.userVersion}, and the kbsync that holds it is ${older ? 'older' : 'newer'} than this one (schema ${LEDGER_SCHEMA_VERSION}).`, {
      hint: 'Stop the running kbsync (it holds the ledger), then run this command again: it then upgrades the ledger itself if needed.',
    });
  }
  let db: Database | undefined;
  try {
    // The holder's transactions are short: wait for one to end rather than fail.
    db = new Database(file, { fileMustExist: true, timeout: 10_000 });
    db.pragma('synchronous = FULL');
    return new Ledger(db, file, undefined, logger);
  } catch (error) {
    db?.close();
    throw asOpenError(file, error);
  }
}

function createPrivateFolder(folder: string): void {
  if (existsSync(folder)) return;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  // The mode given to mkdir is filtered by the umask; the ledger holds document text, so force it.
  chmodSync(folder, 0o700);
}

function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function asOpenError(file: string, error: unknown): KbsyncError {
  if (error instanceof KbsyncError) return error;
  if (isCorruption(error)) return corrupt(file, (error as Error).message, error);
  const code = String((error as { code?: unknown }).code ?? '');
  if (/^SQLITE_READONLY|^SQLITE_CANTOPEN|^EACCES$|^EPERM$|^EROFS$/.test(code)) {
    return new KbsyncError('LEDGER_NOT_WRITABLE', `kbsync cannot write its ledger ${file} (${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}).`, {
      hint: `Give your user write access to ${dirname(file)} and the files in it (chmod/chown), or point stateDir in the config at a writable folder.`,
      cause: error,
    });
  }
  return new KbsyncError('LEDGER_OPEN_FAILED', `Could not open the ledger ${file}: ${(error as Error).message}.`, {
    hint: 'Check that the file and its folder exist and are writable by this user, and that the disk is not full.',
    cause: error,
  });
}
