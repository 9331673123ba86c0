import type { DocumentSummary } from '../../ledger/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import { fitsPlace } from './placement.js';
import type { Layout, RecordEntry } from './types.js';

/** What settling a row looks at: its own columns, nothing that needs its full summary. */
type SettleRow = Pick<RecordEntry, 'path' | 'parentTreeNodeId' | 'remoteTitle'> & {
  /** kbsync created the document (a creation nodeId): only such a document is ever moved. */
  readonly created: boolean;
  /** A hold, a conflict or sent images: what plan() must look at even for an unchanged file. */
  readonly marked: boolean;
};

/**
 * A record plan() has nothing to do for, known from its ledger row alone, so a run can leave it out of the
 * records it plans (PlanInput.settled) and a no-op costs little more than the walk. It holds only for a run
 * that lists nothing, where every local file is recorded, and for a file whose stat fingerprint matched the
 * row (its hash is the ledger's, it has no new title). plan() then decides 'none' for it, unless the row is
 * marked (held and open conflicts are planned as held; changed images make the file changed) or the run must
 * finish a move: a document kbsync created that does not sit in the folder its path asks for.
 */
export function isSettled(row: SettleRow, where: SettlePlace): boolean {
  if (row.marked) return false;
  return !row.created || fitsPlace(where, row, row.path) !== false;
}

/** Where documents belong in a run that lists nothing: the ledger's folders (made once per run, not per row). */
export type SettlePlace = { readonly layout: Layout; readonly folderIds: ReadonlyMap<string, TreeNodeId>; readonly remote: undefined };

/** What settling reads of a full summary, as a narrow read gives it (documents.ts, STAT_SELECT). */
export function settleRowOf(summary: DocumentSummary): Parameters<typeof isSettled>[0] {
  const { path, parentTreeNodeId, remoteTitle } = summary;
  return { path, parentTreeNodeId, remoteTitle, created: summary.nodeId !== null, marked: summary.heldCode !== null || summary.conflict || summary.imagesSent !== null };
}
