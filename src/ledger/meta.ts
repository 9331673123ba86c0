import { KbsyncError } from '../errors.js';
import { redact } from '../secrets.js';
import { parseJson, toJson } from './json.js';
import type { Statements } from '../sqlite-statements.js';
import type { JsonValue } from './types.js';

/**
 * Small named values kept with the ledger: workspaceId, root node, time of the last full sweep, counters
 * of calls spent. Values are JSON, so numbers stay numbers.
 */
export class MetaStore {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  get(key: string): JsonValue | undefined {
    const row = this.#sql.get('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row && parseJson(`meta ${JSON.stringify(key)}`, row.value);
  }

  set(key: string, value: JsonValue): void {
    checkKey(key);
    // Nothing in the ledger may hold a secret (design rule 9).
    this.#sql
      .get('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, redact(toJson(`meta ${JSON.stringify(key)}`, value)));
  }

  delete(key: string): boolean {
    return this.#sql.get('DELETE FROM meta WHERE key = ?').run(key).changes > 0;
  }

  /** Adds `by` to a numeric value (missing counts as 0) in one statement and returns the new total. */
  increment(key: string, by = 1): number {
    checkKey(key);
    if (!Number.isFinite(by)) throw new KbsyncError('LEDGER_INVALID_RECORD', `meta.increment('${key}') got ${by}, not a finite number.`);
    const row = this.#sql
      .get(
        `INSERT INTO meta (key, value) VALUES (@key, json(@by)) ON CONFLICT (key) DO UPDATE
           SET value = json(CASE WHEN json_type(value) IN ('integer', 'real') THEN value + @by ELSE @by END)
         RETURNING value`,
      )
      .get({ key, by }) as { value: string };
    return Number(row.value);
  }

  /** Every key and value, for `kbsync status` and diagnosis. */
  entries(): [string, JsonValue][] {
    return (this.#sql.get('SELECT key, value FROM meta ORDER BY key').all() as { key: string; value: string }[]).map((row) => [
      row.key,
      parseJson(`meta ${JSON.stringify(row.key)}`, row.value),
    ]);
  }
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '') {
    throw new KbsyncError('LEDGER_INVALID_RECORD', `A meta key must be a non-empty string (got ${JSON.stringify(key)}).`, {
      hint: 'This is a kbsync bug: please report it.',
    });
  }
}
