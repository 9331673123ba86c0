import type { Database, Statement } from 'better-sqlite3';

/** Prepares each SQL text once per connection (the ledger's, the emulator's): preparing costs far more than running a cached statement. */
export class Statements {
  readonly #db: Database;
  readonly #cache = new Map<string, Statement>();

  constructor(db: Database) {
    this.#db = db;
  }

  get(sql: string): Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  /** A statement whose rows come back as arrays in column order: much cheaper than objects for many rows. */
  raw(sql: string): Statement {
    const key = `raw:${sql}`;
    let statement = this.#cache.get(key);
    if (!statement) {
      statement = this.#db.prepare(sql).raw(true);
      this.#cache.set(key, statement);
    }
    return statement;
  }
}
