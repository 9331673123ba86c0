import type { Database } from 'better-sqlite3';
import { dataVersionReader } from './sqlite.js';
import type { DocumentSummary, SummaryCursor } from './types.js';

/**
 * Every document's summary, decoded once and kept between reads (the daemon's cycles): reading and
 * decoding 10,000 rows was most of a local cycle's own time, when a save changes one or two of them.
 * The repo marks the paths it writes; the next read re-reads only those. Anything that may add, remove
 * or reorder rows (a new path, a rename, a folder move, a delete) drops the whole list, and so does a
 * commit by another connection (SQLite's data_version). Never filled inside an open transaction: a
 * rollback would leave rows here that the file does not hold. A reader that keeps something worked out per
 * row asks which rows were re-read since it last looked (`changesSince`), and works out only those again.
 */
export class SummaryCache {
  readonly #db: Database;
  readonly #readAll: () => DocumentSummary[];
  readonly #readOne: (path: string) => DocumentSummary | undefined;
  readonly #readDataVersion: () => number;
  #rows: DocumentSummary[] | undefined;
  #index = new Map<string, number>();
  #byPath = new Map<string, DocumentSummary>();
  #dirty = new Set<string>();
  #dataVersion = -1;
  /** Counts the reads of every row: a reader that saw an earlier one must look at every row again. */
  #generation = 0;
  /** The paths re-read in place since the last read of every row, in order (a path may repeat). */
  #refreshed: string[] = [];

  constructor(db: Database, readAll: () => DocumentSummary[], readOne: (path: string) => DocumentSummary | undefined) {
    this.#db = db;
    this.#readAll = readAll;
    this.#readOne = readOne;
    this.#readDataVersion = dataVersionReader(db);
  }

  /** `path`'s row was written: re-read it next time. */
  changed(path: string): void {
    if (this.#rows) this.#dirty.add(path);
  }

  /** Rows may have been added, removed or renamed: read everything again next time. */
  reset(): void {
    this.#rows = undefined;
    this.#index = new Map();
    this.#byPath = new Map();
    this.#dirty = new Set();
  }

  /** The summaries sorted by path, as `readAll` gives them. The array is shared: callers must not change it. */
  all(): readonly DocumentSummary[] {
    return this.#read().rows;
  }

  /** The same summaries by path. The map is shared: callers must not change it. */
  byPath(): ReadonlyMap<string, DocumentSummary> {
    return this.#read().byPath;
  }

  /**
   * The rows brought up to date, and the paths whose row was re-read since `cursor` (undefined: every row may
   * differ, for the rows were read anew since, or the reader never looked), with the cursor to ask with next.
   * Every other row is the very object it was: a summary never changes.
   */
  changesSince(cursor: SummaryCursor | undefined): { readonly cursor: SummaryCursor; readonly paths: readonly string[] | undefined } {
    this.#read();
    const now = { generation: this.#generation, taken: this.#refreshed.length };
    if (cursor?.generation !== this.#generation) return { cursor: now, paths: undefined };
    return { cursor: now, paths: this.#refreshed.slice(cursor.taken) };
  }

  #read(): { rows: readonly DocumentSummary[]; byPath: ReadonlyMap<string, DocumentSummary> } {
    if (this.#db.inTransaction) {
      const rows = this.#readAll();
      return { rows, byPath: new Map(rows.map((row) => [row.path, row])) };
    }
    const version = this.#readDataVersion();
    if (version !== this.#dataVersion) this.reset();
    if (this.#rows && !this.#refresh(this.#rows)) this.reset();
    if (!this.#rows) {
      this.#rows = this.#readAll();
      this.#index = new Map(this.#rows.map((row, i) => [row.path, i]));
      this.#byPath = new Map(this.#rows.map((row) => [row.path, row]));
      this.#dataVersion = version;
      this.#generation += 1;
      this.#refreshed = [];
    }
    this.#dirty = new Set();
    return { rows: this.#rows, byPath: this.#byPath };
  }

  /** Re-reads the written rows in place; false when one is new or gone (the order may have changed). */
  #refresh(rows: DocumentSummary[]): boolean {
    for (const path of this.#dirty) {
      const at = this.#index.get(path);
      const row = this.#readOne(path);
      if (at === undefined || !row) return false;
      rows[at] = row;
      this.#byPath.set(path, row);
      this.#refreshed.push(path);
    }
    // A long-lived daemon's log of re-read paths stays shorter than the rows: past that, readers look at every row once.
    if (this.#refreshed.length > rows.length) {
      this.#generation += 1;
      this.#refreshed = [];
    }
    return true;
  }
}
