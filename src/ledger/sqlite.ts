import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// Required, not imported: an ES import of a CommonJS package has Node scan its source for export names
// first, which made loading better-sqlite3 take twice as long (about 5 ms more of every run).
const require = createRequire(import.meta.url);

/** better-sqlite3's Database class, which the ledger opens its file with. */
export const Database = require('better-sqlite3') as typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;
