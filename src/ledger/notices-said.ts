import type { Statements } from '../sqlite-statements.js';
import { parseJson, toJson } from './json.js';

/**
 * What `kbsync watch` last said of each synced file's broken links and unpublished images: the keys its cycle log
 * compares (src/daemon/cycle-log.ts), kept by the file's document row, so that a restart does not say again what
 * still stands, a rename keeps it, and a deleted row (the file gone, or paired afresh) takes it along.
 */
export class NoticesSaidRepo {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  /** What was last said of the file at `path`; empty when nothing stands (or it has no document row). */
  of(path: string): ReadonlySet<string> {
    const row = this.#sql.get('SELECT n.said FROM notices_said n JOIN documents d ON d.id = n.document_id WHERE d.path = ?').get(path) as { said: string } | undefined;
    return new Set(row ? parseJson<string[]>(`what was said of ${JSON.stringify(path)}`, row.said) : []);
  }

  /**
   * Keeps `said` as what was last said of the file at `path` (empty: nothing stands, the row goes). False, and
   * nothing kept, when the path has no document row (its create has not gone through yet).
   */
  record(path: string, said: ReadonlySet<string>): boolean {
    const row = this.#sql.get('SELECT id FROM documents WHERE path = ?').get(path) as { id: number } | undefined;
    if (!row) return false;
    if (said.size === 0) this.#sql.get('DELETE FROM notices_said WHERE document_id = ?').run(row.id);
    else {
      const json = toJson(`what was said of ${JSON.stringify(path)}`, [...said].sort());
      this.#sql.get('INSERT INTO notices_said (document_id, said) VALUES (?, ?) ON CONFLICT (document_id) DO UPDATE SET said = excluded.said').run(row.id, json);
    }
    return true;
  }
}
