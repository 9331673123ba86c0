import type { KbClient } from '../../api/index.js';
import { blocksHash } from '../../markdown/index.js';
import { titleFits, wantedTitle } from '../decide/corroborate.js';
import type { LocalEntry, RecordEntry, RemoteSnapshot } from '../decide/types.js';
import type { Layout } from '../decide/types.js';

/**
 * Without the team's key, a shared-state entry pairs a file with a document only when the document bears the
 * file's title (decide/corroborate.ts). A colleague who renames the document in the web editor breaks that
 * pairing, and a run without a ledger (CI) would make a second document for the file. So the documents whose
 * entries their titles no longer vouch for are read (one call each, only for those), and an entry whose
 * document still holds the very blocks it recorded is marked as witnessed: the document is as that entry's
 * writer left it but for its title. The rename moved the document's time too, and that move is the rename's,
 * as a machine with a ledger takes it (sync/assess.ts, renameExplains: the title the file gives is the one
 * listed before). A failed read stops the run: a guess would make a second document.
 */
export async function witnessRenamed(
  client: KbClient,
  shared: Map<string, RecordEntry>,
  local: ReadonlyMap<string, LocalEntry>,
  remote: RemoteSnapshot,
  layout: Layout,
): Promise<void> {
  const unvouched = [...shared].filter(([path, record]) => {
    const file = local.get(path);
    return file !== undefined && remote.docs.has(record.docKey) && record.remoteTitle !== '' && record.remoteBlocksHash !== '' && !titleFits({ layout }, record, file, path);
  });
  for (const [path, record] of unvouched) {
    const blocks = await client.readBlocks(record.docKey);
    if (blocksHash(blocks) === record.remoteBlocksHash) shared.set(path, { ...record, renamedFrom: wantedTitle({ layout }, local.get(path) as LocalEntry, path) });
  }
}
