import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// Required, not imported: an ES import of a CommonJS package has Node scan its source for export names
// first, which made loading better-sqlite3 take twice as long (about 5 ms more of every run).
const require = createRequire(import.meta.url);

/** better-sqlite3's Database class, which the ledger opens its file with. */
export const Database = require('better-sqlite3') as typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;

/**
 * Reads SQLite's data_version (it changes when another connection commits) through one statement prepared
 * once: `db.pragma()` prepares a statement on every call, and the daemon asks every second, idle or not.
 */
export function dataVersionReader(db: Database): () => number {
  const statement = db.prepare('PRAGMA data_version').pluck();
  return () => statement.get() as number;
}
