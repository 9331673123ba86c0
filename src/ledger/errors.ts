import { KbsyncError } from '../errors.js';

/** True when SQLite refused a write because `table.column` must be unique. */
export function isUniqueViolation(error: unknown, table: string, column: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') &&
    typeof message === 'string' &&
    message.includes(`${table}.${column}`)
  );
}

/** Two records would claim one path or one remote id: the ledger refuses rather than lose one of them. */
export function duplicateError(message: string, cause?: unknown): KbsyncError {
  return new KbsyncError('LEDGER_DUPLICATE', message, {
    hint: 'Each file maps to exactly one document and back; this is a kbsync bug: please report it with the log.',
    cause,
  });
}

export function notFoundError(what: string, path: string): KbsyncError {
  return new KbsyncError('LEDGER_NOT_FOUND', `The ledger has no ${what} at ${JSON.stringify(path)}.`, {
    hint: 'This is a kbsync bug: please report it with the log.',
  });
}
