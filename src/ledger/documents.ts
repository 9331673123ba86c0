import type { Database } from 'better-sqlite3';
import { KbsyncError } from '../errors.js';
import type { DocKey, TreeNodeId } from '../model/ids.js';
import {
  BODY_COLUMNS,
  type Column,
  SUMMARY_COLUMNS,
  WRITTEN_COLUMNS,
  WRITTEN_SUMMARY_COLUMNS,
  columnOf,
  decodeBody,
  decodeRawSummary,
  decodeSummary,
  encodeField,
  selectList,
  sharedValues,
} from './document-columns.js';
import { duplicateError, isUniqueViolation, notFoundError } from './errors.js';
import { checkRelativePath } from './rel-path.js';
import type { Statements } from '../sqlite-statements.js';
import { SummaryCache } from './summary-cache.js';
import type { DocumentPatch, DocumentRecord, DocumentStat, DocumentSummary, DocumentWrite, SummaryCursor } from './types.js';

type Row = Record<string, unknown>;

const SUMMARY_SELECT = `SELECT ${SUMMARY_COLUMNS.map((c) => c.column).join(', ')} FROM documents`;
const STAT_SELECT = `SELECT path, local_hash, stat_size, stat_mtime_ms, stat_ino, parent_tree_node_id, remote_title, node_id IS NOT NULL,
  held_code IS NOT NULL OR conflict <> 0 OR images_sent IS NOT NULL FROM documents`;
const FULL_SELECT = `SELECT ${selectList(SUMMARY_COLUMNS, 'd')}, ${selectList(BODY_COLUMNS, 'b')}
  FROM documents d JOIN document_bodies b ON b.document_id = d.id`;
const assignments = (columns: readonly Column[]) => columns.map((c) => `${c.column} = @${c.field}`).join(', ');
const UPSERT_DOCUMENT = `INSERT INTO documents (${WRITTEN_SUMMARY_COLUMNS.map((c) => c.column).join(', ')})
  VALUES (${WRITTEN_SUMMARY_COLUMNS.map((c) => `@${c.field}`).join(', ')})
  ON CONFLICT (path) DO UPDATE SET ${WRITTEN_SUMMARY_COLUMNS.map((c) => `${c.column} = excluded.${c.column}`).join(', ')}
  RETURNING id`;
const UPSERT_BODY = `INSERT INTO document_bodies (document_id, ${BODY_COLUMNS.map((c) => c.column).join(', ')})
  VALUES (@id, ${BODY_COLUMNS.map((c) => `@${c.field}`).join(', ')})
  ON CONFLICT (document_id) DO UPDATE SET ${BODY_COLUMNS.map((c) => `${c.column} = excluded.${c.column}`).join(', ')}`;

/**
 * One row per synced document: which file is which document, and what both sides looked like when they
 * last agreed. The small columns (`allSummaries`) are read on every cycle; the bodies only when needed.
 */
export class DocumentsRepo {
  readonly #db: Database;
  readonly #sql: Statements;
  /** Set by `keepSummaries()`: a long-running process reads only the rows it wrote since. */
  #kept: SummaryCache | undefined;
  /** With kept summaries: the repeated values of the rows read, one string each. */
  #shared: ((value: unknown) => unknown) | undefined;

  /** @internal (the ledger makes it) */
  constructor(db: Database, statements: Statements) {
    this.#db = db;
    this.#sql = statements;
  }

  /**
   * From now on `allSummaries()` keeps the decoded rows and re-reads only those written since (the daemon,
   * whose every cycle reads all of them). A one-shot run reads them once or twice and keeps nothing.
   */
  keepSummaries(): void {
    this.#shared ??= sharedValues();
    this.#kept ??= new SummaryCache(this.#db, () => this.#readSummaries(), (path) => this.summary(path));
  }

  /** Whether `allSummaries()` is answered from rows kept in memory (so reading all of them costs little). */
  get keepsSummaries(): boolean {
    return this.#kept !== undefined;
  }

  get(path: string): DocumentRecord | undefined {
    return this.#full(this.#sql.get(`${FULL_SELECT} WHERE d.path = ?`).get(path) as Row | undefined);
  }

  byDocKey(docKey: DocKey): DocumentRecord | undefined {
    return this.#full(this.#sql.get(`${FULL_SELECT} WHERE d.doc_key = ?`).get(docKey) as Row | undefined);
  }

  byTreeNodeId(treeNodeId: TreeNodeId): DocumentRecord | undefined {
    return this.#full(this.#sql.get(`${FULL_SELECT} WHERE d.tree_node_id = ?`).get(treeNodeId) as Row | undefined);
  }

  /** Every record with its bodies parsed, sorted by path: costly for a large ledger, a sync cycle wants `allSummaries()`. */
  allRecords(): DocumentRecord[] {
    return (this.#sql.get(`${FULL_SELECT} ORDER BY d.path`).all() as Row[]).map((row) => this.#full(row) as DocumentRecord);
  }

  summary(path: string): DocumentSummary | undefined {
    const values = this.#sql.raw(`${SUMMARY_SELECT} WHERE path = ?`).get(path) as unknown[] | undefined;
    return values && decodeRawSummary(values, this.#shared);
  }

  /**
   * Every record's summary, sorted by path: everything a no-op sync compares (ids, hashes, stat fingerprint,
   * remote time, flags) without reading or parsing the bodies. Read the bodies of one record with `get`.
   */
  allSummaries(): readonly DocumentSummary[] {
    return this.#kept ? this.#kept.all() : this.#readSummaries();
  }

  /**
   * With kept summaries: the paths whose summary is a new object since `cursor` (undefined: any may be), and the
   * cursor to ask with next (SummaryCache.changesSince). Undefined when summaries are not kept.
   */
  summaryChanges(cursor: SummaryCursor | undefined): { readonly cursor: SummaryCursor; readonly paths: readonly string[] | undefined } | undefined {
    return this.#kept?.changesSince(cursor);
  }

  /** The same summaries by path (kept with them by `keepSummaries()`). */
  summariesByPath(): ReadonlyMap<string, DocumentSummary> {
    return this.#kept ? this.#kept.byPath() : new Map(this.#readSummaries().map((summary) => [summary.path, summary]));
  }

  #readSummaries(): DocumentSummary[] {
    return (this.#sql.raw(`${SUMMARY_SELECT} ORDER BY path`).all() as unknown[][]).map((values) => decodeRawSummary(values, this.#shared));
  }

  /** The summaries of these paths (those recorded), sorted by path like `allSummaries`. */
  summaries(paths: readonly string[]): DocumentSummary[] {
    if (paths.length === 0) return [];
    const rows = this.#sql.raw(`${SUMMARY_SELECT} WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path`).all(JSON.stringify(paths)) as unknown[][];
    return rows.map((values) => decodeRawSummary(values));
  }

  /**
   * Every row's DocumentStat, unsorted: a few columns instead of the summary's 25, so a push that finds
   * nearly every file unchanged reads the full summaries of the rest only (`summary`).
   */
  allStats(): DocumentStat[] {
    const rows = this.#sql.raw(STAT_SELECT).all() as [string, string, number, number, number, TreeNodeId, string, number, number][];
    return rows.map((v) => ({ path: v[0], localHash: v[1], statSize: v[2], statMtimeMs: v[3], statIno: v[4], parentTreeNodeId: v[5], remoteTitle: v[6], created: v[7] === 1, marked: v[8] === 1 }));
  }

  count(): number {
    return (this.#sql.get('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
  }

  /** Inserts or replaces the record at `record.path`; a docKey or treeNodeId already used by another path is refused. */
  upsert(record: DocumentWrite): void {
    const params = encodeAll(WRITTEN_COLUMNS, record, String(record.path));
    this.#kept?.changed(record.path); // a new path is found missing from the kept rows, which are then read again
    this.#write(record.path, () => {
      const { id } = this.#sql.get(UPSERT_DOCUMENT).get(pick(params, WRITTEN_SUMMARY_COLUMNS)) as { id: number };
      this.#sql.get(UPSERT_BODY).run({ id, ...pick(params, BODY_COLUMNS) });
    }, record);
  }

  /** Changes some fields of an existing record (throws LEDGER_NOT_FOUND if there is none). */
  update(path: string, patch: DocumentPatch): void {
    const columns = Object.keys(patch).map((field) => {
      const column = columnOf(field);
      if (!column || column.field === 'path' || column.derived) {
        throw new KbsyncError('LEDGER_INVALID_RECORD', `documents.update cannot change the field ${JSON.stringify(field)}.`, {
          hint: field === 'path' ? 'Use documents.rename to change a path.' : 'This is a kbsync bug: please report it.',
        });
      }
      return column;
    });
    const params = encodeAll(columns, patch, path);
    const own = columns.filter((c) => c.table === 'documents');
    const body = columns.filter((c) => c.table === 'document_bodies');
    // A body field the ledger derives a summary column from changes the summary too.
    if (own.length > 0 || body.some((c) => c.field === 'lossyBase' || c.field === 'hiddenEdit')) this.#kept?.changed(path);
    this.#write(path, () => {
      const id = this.#idOf(path);
      if (own.length > 0) this.#sql.get(`UPDATE documents SET ${assignments(own)} WHERE id = @id`).run({ id, ...pick(params, own) });
      if (body.length > 0) {
        this.#sql.get(`UPDATE document_bodies SET ${assignments(body)} WHERE document_id = @id`).run({ id, ...pick(params, body) });
      }
    }, patch);
  }

  /** Moves a record to a new path, keeping its ids and bodies. */
  rename(oldPath: string, newPath: string): void {
    checkRelativePath('a document path', oldPath);
    checkRelativePath('a document path', newPath);
    this.#kept?.reset();
    this.#write(newPath, () => {
      const id = this.#idOf(oldPath);
      // A file moved here is where someone put it, no longer where a title named it (DocumentSummary.namedHere).
      if (oldPath !== newPath) this.#sql.get('UPDATE documents SET path = ?, named_here = 0 WHERE id = ?').run(newPath, id);
    });
  }

  /** Moves every record under folder `from` to the same place under folder `to`; returns how many moved. */
  moveFolder(from: string, to: string): number {
    const prefix = `${from}/`;
    this.#kept?.reset();
    return this.#write(to, () =>
      this.#sql
        .get(
          `UPDATE documents SET path = @to || substr(path, length(@from) + 1), named_here = 0,
             conflict_path = CASE WHEN substr(conflict_path, 1, length(@prefix)) = @prefix
               THEN @to || substr(conflict_path, length(@from) + 1) ELSE conflict_path END
           WHERE substr(path, 1, length(@prefix)) = @prefix`,
        )
        .run({ from, to, prefix }).changes,
    );
  }

  /** Forgets a record and its bodies; returns whether there was one. */
  remove(path: string): boolean {
    this.#kept?.reset();
    return this.#sql.get('DELETE FROM documents WHERE path = ?').run(path).changes > 0;
  }

  #idOf(path: string): number {
    const row = this.#sql.get('SELECT id FROM documents WHERE path = ?').get(path) as { id: number } | undefined;
    if (!row) throw notFoundError('document', path);
    return row.id;
  }

  #full(row: Row | undefined): DocumentRecord | undefined {
    if (!row) return undefined;
    const summary = decodeSummary(row);
    return Object.assign(summary, decodeBody(row, summary.path));
  }

  /**
   * Runs a multi-statement write atomically and turns a uniqueness violation into a message naming both
   * claimants. `claims` holds the ids the write gives `path` (the record or patch being written).
   */
  #write<T>(path: string, write: () => T, claims: Partial<Record<'docKey' | 'treeNodeId', unknown>> = {}): T {
    try {
      return this.#db.transaction(write)();
    } catch (error) {
      for (const [column, field] of [['doc_key', 'docKey'], ['tree_node_id', 'treeNodeId']] as const) {
        if (!isUniqueViolation(error, 'documents', column)) continue;
        const holder = this.#sql.get(`SELECT path FROM documents WHERE ${column} = ?`).get(claims[field]) as { path: string } | undefined;
        throw duplicateError(
          `The ledger cannot record ${JSON.stringify(path)} with ${field} ${JSON.stringify(claims[field])}: ` +
            `that ${field} is already recorded for ${JSON.stringify(holder?.path ?? 'another file')}.`,
          error,
        );
      }
      if (isUniqueViolation(error, 'documents', 'path')) {
        throw duplicateError(`The ledger cannot move a record to ${JSON.stringify(path)}: another record already has that path.`, error);
      }
      throw error;
    }
  }
}

function encodeAll(columns: readonly Column[], values: object, path: string): Record<string, string | number | null> {
  const params: Record<string, string | number | null> = {};
  for (const c of columns) params[c.field] = encodeField(c, (values as Record<string, unknown>)[c.field], path);
  return params;
}

function pick(params: Record<string, string | number | null>, columns: readonly Column[]): Record<string, string | number | null> {
  return Object.fromEntries(columns.map((c) => [c.field, params[c.field] ?? null]));
}
