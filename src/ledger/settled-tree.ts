import type { Statements } from '../sqlite-statements.js';

/**
 * The fingerprint of the last tree a push found settled throughout (src/sync/observe/settled-tree.ts). The
 * schema's triggers delete it whenever anything a plan reads changes, so a fingerprint read here always
 * belongs to the ledger as it is now.
 */
export class SettledTreeStore {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  get(): string | undefined {
    const row = this.#sql.get('SELECT fingerprint FROM settled_tree WHERE id = 1').get() as { fingerprint: string } | undefined;
    return row?.fingerprint;
  }

  record(fingerprint: string): void {
    this.#sql.get('INSERT INTO settled_tree (id, fingerprint) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint').run(fingerprint);
  }
}
