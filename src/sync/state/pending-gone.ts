import type { JsonValue, Ledger } from '../../ledger/index.js';

/** Ledger meta key: documents this machine stopped tracking that the shared state has not been told of. */
const PENDING_GONE_KEY = 'state.pendingGone';
/**
 * Ledger meta key: of those, the documents this machine deleted, each with the version (its source's hash) its file
 * was deleted holding. Kept apart from the paths, so a kbsync from before it still reads (and tells) those.
 */
const DELETED_VERSIONS_KEY = 'state.pendingGoneVersions';

/** A removal still to be told: the path the document had, and, for a delete, the version deleted (GoneRecord `h`). */
export type PendingGone = { readonly path: string; readonly deleted?: string };

/**
 * Notes, in the same transaction as the ledger row's end, that the shared state is to get a `gone` record
 * for the document: a run killed between its actions and its publish (or whose publish failed) leaves the
 * note, and the next run tells the state. Kept in memory only, the note died with the run, and every other
 * machine kept pairing the path with a document deleted long ago (state chaos seed 15). `deleted`: this machine
 * deleted the document, its file as last synced holding that version.
 */
export function rememberGone(ledger: Ledger, docKey: string, path: string, deleted?: string): void {
  ledger.meta.set(PENDING_GONE_KEY, { ...stringsOf(ledger.meta.get(PENDING_GONE_KEY)), [docKey]: path });
  const versions = stringsOf(ledger.meta.get(DELETED_VERSIONS_KEY));
  // A removal noted again without a delete (the file trashed or followed since) is no delete of that version.
  const { [docKey]: _old, ...others } = versions;
  ledger.meta.set(DELETED_VERSIONS_KEY, deleted === undefined ? others : { ...others, [docKey]: deleted });
}

/** The removals still to be told, by docKey. */
export function pendingGone(ledger: Ledger): Map<string, PendingGone> {
  const versions = stringsOf(ledger.meta.get(DELETED_VERSIONS_KEY));
  return new Map(
    Object.entries(stringsOf(ledger.meta.get(PENDING_GONE_KEY))).map(([docKey, path]) => {
      const deleted = versions[docKey];
      return [docKey, deleted === undefined ? { path } : { path, deleted }];
    }),
  );
}

/** After a publish that took them in: nothing is pending any more. */
export function clearPendingGone(ledger: Ledger): void {
  ledger.meta.delete(PENDING_GONE_KEY);
  ledger.meta.delete(DELETED_VERSIONS_KEY);
}

/** The string values of a meta object (anything else, a damaged or foreign value, is left out). */
function stringsOf(value: JsonValue | undefined): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
