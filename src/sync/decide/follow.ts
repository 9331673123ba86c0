import type { DocumentPatch } from '../../ledger/index.js';
import type { PlanInput, RecordEntry, RemoteDoc, Replacement } from './types.js';

/**
 * Records follow a document another kbsync writer replaced (PlanInput.replaced). Without this, a machine
 * whose file is still paired with the old document sees it deleted remotely and makes a document of its
 * own: two documents for one file (two machines moving it at once, or one re-creating what a colleague
 * deleted while another still had it). Following, the record is the new document's, with the old one's
 * base and the time the other writer recorded, re-checked: the document is read before anything is written
 * (a merge with what the other writer put there), and an unchanged file takes the path that writer gave it.
 * A copy of the new document pulled here before that writer's record came (Replacement `absorbs`) leaves the
 * plan: the followed record takes its place, and the run moves its file to kbsync's trash (act/record.ts).
 */
export function withReplacements(input: PlanInput): PlanInput {
  if (!input.replaced || input.replaced.size === 0 || !input.remote) return input;
  const records = new Map(input.records);
  let local = input.local;
  const renamed = new Map(input.renamedElsewhere ?? []);
  const paired = new Set<string>([...input.records.values()].map((record) => record.docKey));
  for (const [path, replacement] of input.replaced) {
    const record = records.get(path);
    const listed = input.remote.docs.get(replacement.docKey);
    // A copy pulled before the writer's record gives way to the edited file (a local change: never in a push).
    const copy = replacement.absorbs !== undefined && input.mode !== 'push' ? records.get(replacement.absorbs) : undefined;
    const takesCopy = copy !== undefined && copy.docKey === replacement.docKey;
    if (!record || !listed || input.remote.docs.has(record.docKey) || (paired.has(replacement.docKey) && !takesCopy)) continue;
    paired.add(replacement.docKey);
    if (takesCopy) {
      records.delete(copy.path);
      local = new Map([...local].filter(([at]) => at !== copy.path));
    }
    records.set(path, { ...followed(record, replacement, listed), ...(takesCopy ? { absorbs: copy.path } : {}) });
    if (replacement.path !== path) renamed.set(path, replacement.path);
  }
  return { ...input, records, local, ...(renamed.size > 0 ? { renamedElsewhere: renamed } : {}) };
}

/** The record, rebound to the document that replaced its own: ids from the replacement, the base kept, its time to be read. */
function followed(record: RecordEntry, replacement: Replacement, listed: RemoteDoc): RecordEntry {
  return {
    ...record,
    docKey: replacement.docKey,
    nodeId: replacement.nodeId,
    origin: replacement.origin,
    treeNodeId: listed.treeNodeId,
    parentTreeNodeId: listed.parentTreeNodeId,
    remoteTitle: listed.title,
    // The time its writer recorded: an edit since (inside code, where reads show nothing) shows as a later one
    // (model seed 3021: unknown, it let a colleague's code edit be overwritten).
    remoteModifiedTime: replacement.modifiedTime,
    recheck: true,
    held: null,
    follows: record.docKey,
  };
}

/**
 * What the ledger row of a record that follows a replacement changes to: the new document's ids, its time
 * as its writer recorded it (to be re-checked), nothing held or published of it yet. The base (text, blocks,
 * agreement time) stays: it is what both sides last agreed on, and most often the other writer made the new
 * document from that file. Not always: with no conditional write, our last write can land in the old document
 * after that writer read it, and the new document is made from the version before (convergence soak 751: taken
 * for a change that removed our edit, it was pulled over the file, and the edit was in no file and no document).
 * So what our last write replaced (publishedOver) stays too: that writer's copy, read before our write, then
 * reads as the lost update it is, and the edit is merged into the new document. Where that writer's record says
 * the version it made the new document from (DocRecord `b`, one ours was made from too), the merge is against
 * that one (a branch: state/published-version.ts).
 */
export function followPatch(record: RecordEntry, url: string): DocumentPatch {
  return {
    docKey: record.docKey,
    nodeId: record.nodeId,
    origin: record.origin,
    treeNodeId: record.treeNodeId,
    parentTreeNodeId: record.parentTreeNodeId,
    remoteTitle: record.remoteTitle,
    url,
    remoteModifiedTime: record.remoteModifiedTime,
    recheck: true,
    heldCode: null,
    heldLocalHash: null,
    heldRemoteTime: null,
    publishedRecord: null,
    hiddenEdit: null,
  };
}
