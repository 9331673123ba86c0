import type { Statements } from '../sqlite-statements.js';

/**
 * What `kbsync watch` said of each file's hold or wait that nothing else records (DocOutcome.unrecorded: a create
 * held before its file has a row, a move's wait decided afresh by every run), by path, as the hash of its words: the
 * daemon's memory of it (src/daemon/unrecorded-said.ts) outlives a restart. Kept by path, not by document row: such
 * a file has no row at its path (yet).
 */
export class UnrecordedSaidRepo {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  /** Every path's words, as last kept. */
  all(): Map<string, string> {
    const rows = this.#sql.get('SELECT path, words FROM unrecorded_said').all() as { path: string; words: string }[];
    return new Map(rows.map((row) => [row.path, row.words]));
  }

  /** Keeps `words` as what was said of `path`; undefined: nothing stands, the row goes. */
  record(path: string, words: string | undefined): void {
    if (words === undefined) this.#sql.get('DELETE FROM unrecorded_said WHERE path = ?').run(path);
    else this.#sql.get('INSERT INTO unrecorded_said (path, words) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET words = excluded.words').run(path, words);
  }
}
