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

/**
 * What to do about a value the ledger refused (malformed, or a second claim on one path or id). Such a value
 * comes from kbsync itself or from the shared state in the knowledge base, which anyone who can edit the
 * workspace can change: the message names the state first rather than claim a bug it cannot know of.
 */
export const REFUSED_VALUE_HINT =
  'Nothing was written. Such a value comes from the shared state in the knowledge base (the .kbsync folder, which anyone who can edit the workspace can change: ' +
  '`kbsync state` shows whether it is damaged, and `kbsync state rewrite` on a machine whose ledger is intact writes it anew) or from a kbsync bug: if the state is sound, please report this with the log.';

/** Two records would claim one path or one remote id: the ledger refuses rather than lose one of them. */
export function duplicateError(message: string, cause?: unknown): KbsyncError {
  return new KbsyncError('LEDGER_DUPLICATE', `${message} Each file maps to exactly one document and back.`, { hint: REFUSED_VALUE_HINT, cause });
}

export function notFoundError(what: string, path: string): KbsyncError {
  return new KbsyncError('LEDGER_NOT_FOUND', `The ledger has no ${what} at ${JSON.stringify(path)}.`, {
    hint: 'This is a kbsync bug: please report it with the log.',
  });
}
