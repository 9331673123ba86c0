import { KbsyncError } from '../errors.js';
import { REFUSED_VALUE_HINT } from './errors.js';
import type { JsonValue } from './types.js';

/** Serialises a value for a JSON column, refusing what JSON would silently change or drop. */
export function toJson(what: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw invalid(what, 'cannot be serialised to JSON', cause);
  }
  if (text === undefined) throw invalid(what, `is ${typeof value}, which JSON cannot hold`);
  return text;
}

/** Parses a JSON column; a failure means the file was changed behind kbsync's back. */
export function parseJson<T = JsonValue>(what: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new KbsyncError('LEDGER_CORRUPT', `The ledger holds unreadable JSON in ${what}.`, {
      hint: 'Move the ledger file aside and run kbsync again: it re-adopts documents by title without creating duplicates.',
      cause,
    });
  }
}

function invalid(what: string, problem: string, cause?: unknown): KbsyncError {
  return new KbsyncError('LEDGER_INVALID_RECORD', `The ledger was given ${what} that ${problem}.`, { hint: REFUSED_VALUE_HINT, cause });
}
