import type { Ledger } from '../../ledger/index.js';
import type { RemoteStateStore } from '../../remote-state/store.js';
import type { LocalEntry, RecordEntry, RenameTexts } from '../decide/types.js';
import type { TextFile } from '../../local/index.js';

/**
 * The texts rename detection compares by content (decide/moves.ts), read only in a run that has both recorded
 * files gone from their paths and files no record pairs: a rename and an edit in one commit. What a gone file
 * last synced is the ledger's base, or for a file known only from the shared state (a CI checkout has no
 * ledger) the source the state keeps of it: one read of each sources document that holds one, and none when
 * the run has no new file to pair.
 */
export async function renameTexts(
  deps: { readonly ledger: Ledger | undefined; readonly store: RemoteStateStore | undefined },
  records: ReadonlyMap<string, RecordEntry>,
  shared: ReadonlyMap<string, RecordEntry> | undefined,
  local: { readonly entries: ReadonlyMap<string, LocalEntry>; readonly texts: ReadonlyMap<string, TextFile> },
): Promise<RenameTexts | undefined> {
  const added = new Map<string, string>();
  for (const [path, file] of local.texts) if (!records.has(path) && local.entries.has(path)) added.set(path, file.text);
  if (added.size === 0) return undefined;
  const gone = new Map<string, string>();
  for (const [path, record] of records) {
    if (local.entries.has(path)) continue;
    const base = record.shared ? undefined : deps.ledger?.documents.get(path)?.baseMarkdown;
    if (base !== undefined) gone.set(path, base);
  }
  const kept = [...(shared ?? new Map<string, RecordEntry>()).values()].filter((record) => !local.entries.has(record.path) && !records.has(record.path) && record.localHash !== '');
  if (kept.length > 0 && deps.store) {
    const sources = await deps.store.sources(new Set(kept.map((record) => record.localHash)));
    for (const record of kept) {
      const text = sources.get(record.localHash);
      if (text !== undefined) gone.set(record.path, text);
    }
  }
  return gone.size === 0 ? undefined : { gone, added };
}
