import type { JsonValue, Ledger } from '../../ledger/index.js';

/** Ledger meta key: documents this machine stopped tracking that the shared state has not been told of. */
const PENDING_GONE_KEY = 'state.pendingGone';

/**
 * Notes, in the same transaction as the ledger row's end, that the shared state is to get a `gone` record
 * for the document: a run killed between its actions and its publish (or whose publish failed) leaves the
 * note, and the next run tells the state. Kept in memory only, the note died with the run, and every other
 * machine kept pairing the path with a document deleted long ago (state chaos seed 15).
 */
export function rememberGone(ledger: Ledger, docKey: string, path: string): void {
  ledger.meta.set(PENDING_GONE_KEY, { ...Object.fromEntries(pendingGone(ledger)), [docKey]: path });
}

/** The removals still to be told: docKey → the path it had. */
export function pendingGone(ledger: Ledger): Map<string, string> {
  const value: JsonValue | undefined = ledger.meta.get(PENDING_GONE_KEY);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return new Map();
  return new Map(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** After a publish that took them in: nothing is pending any more. */
export function clearPendingGone(ledger: Ledger): void {
  ledger.meta.delete(PENDING_GONE_KEY);
}
