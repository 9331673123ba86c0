import type { Database } from 'better-sqlite3';
import type { Logger } from '../log.js';
import { DocumentsRepo } from './documents.js';
import { FoldersRepo } from './folders.js';
import { ImagesRepo } from './images.js';
import { IntentsJournal } from './intents.js';
import type { LedgerLock } from './lock.js';
import { MetaStore } from './meta.js';
import { NoticesSaidRepo } from './notices-said.js';
import { UnrecordedSaidRepo } from './unrecorded-said.js';
import { ReleasesRepo } from './releases.js';
import { RetirementsRepo } from './retirements.js';
import { SettledTreeStore } from './settled-tree.js';
import { Statements } from '../sqlite-statements.js';
import { dataVersionReader } from './sqlite.js';

/**
 * SQLite's own default page cache, in KiB, for every connection. better-sqlite3 builds SQLite with 16,000, and
 * the cache fills to it whenever a run touches that much of the file: a daemon's first sweep reads every row
 * (10 MB of pages at 10,000 files, the 16 MB cap at 50,000), and a first push of 10,000 notes writes a 14 MB
 * ledger (bench row 9: a sixth of its peak). What the cache took stays in the process until it ends (SQLite
 * frees pages only on `shrink_memory`, and glibc keeps most of what is freed). Pages past the cache are read
 * from the system's file cache: the ledger's hot pages (its indexes, the rows a step writes) stay within it.
 */
const PAGE_CACHE_KIB = 2000;

/**
 * kbsync's memory: which local file is which remote document, what both sides looked like when they last
 * agreed, and which side effects were begun but not yet recorded. Everything is synchronous; every
 * multi-row change runs in one transaction. src/sync writes it (a run's records, `kbsync resolve`'s answers);
 * the daemon also keeps a few counters in its meta (calls spent, queue length, its last cycle).
 */
export class Ledger {
  /** Absolute path of the SQLite file. */
  readonly path: string;
  readonly readonly: boolean;
  readonly documents: DocumentsRepo;
  readonly folders: FoldersRepo;
  readonly intents: IntentsJournal;
  readonly images: ImagesRepo;
  readonly meta: MetaStore;
  readonly retirements: RetirementsRepo;
  /** A person's answers to holds (kbsync resolve --mine / --theirs), waiting for the next run. */
  readonly releases: ReleasesRepo;
  /** The fingerprint of the last tree a push found settled throughout. */
  readonly settledTree: SettledTreeStore;
  /** What kbsync watch last said of each file's broken links and unpublished images. */
  readonly noticesSaid: NoticesSaidRepo;
  /** What kbsync watch said of the holds and waits nothing else records, by path. */
  readonly unrecordedSaid: UnrecordedSaidRepo;
  readonly #db: Database;
  readonly #lock: LedgerLock | undefined;
  readonly #onExit: () => void;
  #closed = false;

  /**
   * Use `openLedger`: it checks, locks and migrates the file first.
   * @internal (not in the published declarations, which then need no better-sqlite3 types)
   */
  constructor(db: Database, path: string, lock: LedgerLock | undefined, logger: Logger) {
    this.#db = db;
    this.#readDataVersion = dataVersionReader(db);
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    this.#lock = lock;
    this.path = path;
    this.readonly = db.readonly;
    const statements = new Statements(db);
    this.documents = new DocumentsRepo(db, statements);
    this.folders = new FoldersRepo(db, statements, this.documents);
    this.intents = new IntentsJournal(db, statements, logger);
    this.images = new ImagesRepo(statements);
    this.meta = new MetaStore(statements);
    this.retirements = new RetirementsRepo(statements);
    this.releases = new ReleasesRepo(statements);
    this.settledTree = new SettledTreeStore(statements);
    this.noticesSaid = new NoticesSaidRepo(statements);
    this.unrecordedSaid = new UnrecordedSaidRepo(statements);
    // A process that exits without close() should still free the ledger for the next run.
    this.#onExit = () => this.#lock?.release();
    process.once('exit', this.#onExit);
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  /**
   * True when another connection committed to the file since the last call (SQLite's data_version): the
   * daemon learns of a release `kbsync resolve` wrote beside it without reading any table.
   */
  changedElsewhere(): boolean {
    const version = this.#readDataVersion();
    const changed = this.#dataVersion !== undefined && version !== this.#dataVersion;
    this.#dataVersion = version;
    return changed;
  }
  #dataVersion: number | undefined;
  readonly #readDataVersion: () => number;

  /**
   * For a process that lives long (the daemon): every document's summary kept between reads (each cycle reads
   * all of them, a save changes one or two), so the daemon rarely reads a row twice.
   */
  keepForLongRun(): void {
    this.documents.keepSummaries();
  }

  /** The bound of SQLite's page cache, in KiB. */
  get pageCacheKib(): number {
    const size = this.#db.pragma('cache_size', { simple: true }) as number;
    // Negative: KiB; positive: pages.
    return size < 0 ? -size : (size * (this.#db.pragma('page_size', { simple: true }) as number)) / 1024;
  }

  /** Runs `fn` in one transaction (nested calls become savepoints); `fn` must be synchronous. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** Folds the write-ahead log into the file, closes it and releases the lock. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    process.removeListener('exit', this.#onExit);
    try {
      // Only the lock's holder folds the log: a connection beside it (kbsync resolve next to the daemon) leaves that to it.
      if (!this.readonly && this.#lock) this.#db.pragma('wal_checkpoint(TRUNCATE)');
      this.#db.close();
    } finally {
      this.#lock?.release();
    }
  }
}
