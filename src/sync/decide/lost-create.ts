import { placeKey } from './placement.js';
import type { PlanInput, RecordEntry, RemoteDoc } from './types.js';

/**
 * The documents creates of this machine whose answer was lost may have made, by the path of the file each was
 * made for: the listed document of the title and folder the create asked for that no ledger row pairs and no
 * writer claims as its own. A record that only mirrors it (its writer pulled it as new and named the path from
 * its title, knowing no record: `namedFromTitle`) is no claim: the document is most likely the one the lost create
 * made, which nobody wrote into since (convergence soak 754: B pulled the empty document A's killed create had
 * made, and A's rerun, taking it for B's, made the page a second time). The file is paired with it as with any
 * twin (decide/adopt.ts): an empty document is filled, one written meanwhile is kept beside the file as a
 * conflict copy; and the mirror follows the file's path, which its maker's record gives (shared-entries.ts).
 */
export function lostCreateTwins(input: PlanInput, records: readonly RecordEntry[]): Map<string, RemoteDoc> {
  const out = new Map<string, RemoteDoc>();
  const creates = input.unconfirmedCreates ?? [];
  if (creates.length === 0 || !input.remote) return out;
  const paired = new Set<string>(records.map((record) => record.docKey));
  const claimed = new Set<string>();
  for (const record of input.shared?.values() ?? []) if (record.namedFromTitle !== true) claimed.add(record.docKey);
  const byPlace = new Map<string, RemoteDoc>();
  for (const doc of input.remote.docs.values()) if (!paired.has(doc.docKey) && !claimed.has(doc.docKey)) byPlace.set(placeKey(doc.parentTreeNodeId, doc.title), doc);
  // Newest first (IntentsJournal.unfinished): a file's latest create names the document it was made for.
  for (const create of creates) {
    const doc = byPlace.get(placeKey(create.parentId, create.title));
    if (doc && !out.has(create.path)) out.set(create.path, doc);
  }
  return out;
}
