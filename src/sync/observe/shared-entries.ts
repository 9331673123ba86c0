import type { DocumentSummary } from '../../ledger/index.js';
import { parseMark } from '../state/publish.js';
import { PathFilter } from '../../local/index.js';
import { asCreationNodeId, asDocKey, asTreeNodeId } from '../../model/ids.js';
import type { LoadedState } from '../../remote-state/store.js';
import type { SharedState, StateEntry } from '../../remote-state/state.js';
import { sideOfLocal } from '../decide/plan.js';
import type { LocalEntry, RecordEntry, RemoteSnapshot, Replacement } from '../decide/types.js';
import type { ObserveOptions } from './options.js';

/**
 * The part of the shared state a run may plan with. A record is input, not authority:
 * - a path the scan would never sync (excluded by the config, or in kbsync's state folder) is left out,
 *   so nothing is written or trashed there on the state's word (records.ts already refuses hidden folders,
 *   `.git`, `node_modules` and `..`);
 * - without the team's key nothing in the state is authenticated, so no creation id is taken from it: a
 *   document known only from the state is never deleted (nor its members changed) on a record anyone
 *   could have written. Files are still paired by path and kept sources still used.
 */
export function usableState(loaded: LoadedState, options: Pick<ObserveOptions, 'root' | 'include' | 'exclude' | 'stateDir'>): SharedState {
  const filter = new PathFilter(options.root, { ...(options.include ? { include: options.include } : {}), ...(options.exclude ? { exclude: options.exclude } : {}), stateDir: options.stateDir });
  const synced = (path: string): boolean => filter.fileVerdict(path) === 'file' && !ancestors(path).some((dir) => filter.dirIgnored(dir));
  const trusted = loaded.authenticated;
  const entries = new Map<string, StateEntry>();
  for (const [path, entry] of loaded.state.entries) if (synced(path)) entries.set(path, trusted ? entry : { ...entry, n: null });
  return { ...loaded.state, entries, nodeIds: trusted ? loaded.state.nodeIds : new Map() };
}

/** `a/b/c.md` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const parts = path.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The shared state's entries for paths this ledger has no row for, as planner records: for documents the
 * listing shows, for documents gone remotely whose file is still here (so a deletion reads as one), and for
 * documents a listed one replaced whose file is gone too (a move whose run was killed after the old document
 * was deleted, before it published that: gone on both sides, the entry is forgotten, not kept for good).
 */
export function sharedRecords(
  state: SharedState,
  remote: RemoteSnapshot,
  summaries: ReadonlyMap<string, DocumentSummary>,
  local: ReadonlyMap<string, unknown>,
): Map<string, RecordEntry> {
  const recordedKeys = new Set([...summaries.values()].map((summary) => summary.docKey as string));
  const records = new Map<string, RecordEntry>();
  for (const entry of state.entries.values()) {
    if (summaries.has(entry.p) || recordedKeys.has(entry.k)) continue;
    const listed = remote.docs.get(asDocKey(entry.k));
    if (!listed && !local.has(entry.p) && !(state.replacedBy.get(entry.k) ?? []).some((k) => remote.docs.has(asDocKey(k)))) continue;
    records.set(entry.p, {
      path: entry.p,
      docKey: asDocKey(entry.k),
      nodeId: entry.n === null ? null : asCreationNodeId(entry.n),
      treeNodeId: listed?.treeNodeId ?? asTreeNodeId(entry.k),
      parentTreeNodeId: listed?.parentTreeNodeId ?? remote.rootId,
      localHash: entry.h,
      ino: 0,
      remoteTitle: listed?.title ?? '',
      remoteModifiedTime: entry.m,
      remoteBlocksHash: entry.rb,
      recheck: entry.m === '' || entry.r === 1,
      origin: entry.o,
      held: null,
      shared: true,
      ...(entry.im ? { images: entry.im } : {}),
      ...(entry.l === 1 ? { lossy: true as const, ...(entry.f === 1 ? { formattingOnly: true as const } : {}), ...(entry.hd !== undefined ? { hidden: entry.hd === 1 } : {}) } : {}),
      ...(entry.a !== undefined ? { agreedAt: entry.a } : {}),
      ...(entry.hc === 1 ? { headCarried: true as const } : {}),
      ...(entry.pr === 1 ? { readPlainly: true as const } : {}),
      ...(entry.nt === 1 ? { namedFromTitle: true as const } : {}),
    });
  }
  return records;
}

/**
 * The files another writer renamed since this machine last published them: the state holds a later record
 * of the same document, by another writer, at a path this ledger does not use. "Later" is against this
 * machine's own publish of the file (or, never published, when it synced it). A keyless team follows them
 * too: a forged record can rename an unchanged file within the synced set, which moving its document in the
 * web editor can as well, and machines that keep their own paths would never agree (README "Remote state").
 */
export function renamedElsewhere(state: SharedState, summaries: ReadonlyMap<string, DocumentSummary>, self: string): Map<string, string> {
  const out = new Map<string, string>();
  const byDoc = new Map([...state.entries.values()].map((entry) => [entry.k, entry]));
  for (const summary of summaries.values()) {
    const entry = byDoc.get(summary.docKey);
    if (!entry || entry.p === summary.path || entry.w === self || summaries.has(entry.p)) continue;
    // A document this machine made and never published: no writer knew its path to rename it. Another's record
    // elsewhere places it where that writer pulled it (by its title, its id lost to a kill here): this file's
    // path is the original, and the other follows it once it is published.
    if (summary.origin === 'created' && summary.publishedRecord === null) continue;
    // Later than this machine's own publish and than its own move of the file (a record it saw then, of an
    // older place, moves nothing back).
    // A path this machine made from the title, knowing no record (`nt`), follows the one another writer's record
    // gives, whenever that was published (the fold keeps it over this one).
    if (entry.c > Math.max(parseMark(summary.publishedRecord)?.clock ?? summary.syncedAt, summary.placedAt) || (summary.namedHere && entry.nt === undefined)) out.set(summary.path, entry.p);
  }
  return out;
}

/** The longest chain of replacements followed (a file moved again and again before this machine ran): a forged loop ends here. */
const MAX_HOPS = 64;

/**
 * The listed document, paired with no record, that stands in for `docKey` along its replacements (breadth
 * first, so the nearest wins; two at one step, as when two machines moved a file at once: the first listed).
 */
function standIn(state: SharedState, remote: RemoteSnapshot, docKey: string, paired: ReadonlySet<string>): string | undefined {
  const seen = new Set([docKey]);
  let step = [docKey];
  for (let hop = 0; hop < MAX_HOPS && step.length > 0; hop++) {
    const next = step.flatMap((key) => state.replacedBy.get(key) ?? []).filter((key) => !seen.has(key));
    const found = next.find((key) => remote.docs.has(asDocKey(key)) && !paired.has(key));
    if (found !== undefined) return found;
    for (const key of next) seen.add(key);
    step = next;
  }
  return undefined;
}

/**
 * Listed documents another kbsync writer replaced by a document the listing shows too: a move (or retitle) whose
 * writer made the new document and has yet to delete the old one (its delete failed, or the run is still going).
 * That writer deletes it whatever happens (a promised retirement), so a run here takes it for gone already: a
 * file paired with it follows the new document (replacementsOf) with any edit made here, and neither document is
 * pulled as a file of its own (soak seed 500: pulled beside the old file, the new one held placeholders where its
 * code stood, and the old file, edited, was left paired with a deleted document). Without the team's key the
 * state is not authenticated: only a new document bearing the old one's title, as a move's does, is believed.
 */
export function supersededListed(state: SharedState, remote: RemoteSnapshot, authenticated: boolean): Set<string> {
  const out = new Set<string>();
  for (const [docKey, listed] of remote.docs) {
    if (!state.replacedBy.has(docKey)) continue;
    const key = standIn(state, remote, docKey, new Set([docKey]));
    const successor = key === undefined ? undefined : remote.docs.get(asDocKey(key));
    if (successor && (authenticated || successor.title === listed.title)) out.add(docKey);
  }
  return out;
}

/**
 * The documents that stand in for recorded ones another writer replaced (DocRecord `rp`), by the record's
 * path: followed along the chain of replacements to one the listing shows and no record pairs yet. An edited
 * file also follows to one a copy here pairs, pulled as a new page knowing no record of it (listed before that
 * writer's record came: DocumentSummary.namedHere) and unchanged since: that copy is the same page and holds nothing the document does not, so the followed record
 * takes its place (soak seed 712: not followed, the edit made the old document again, the page twice).
 */
export function replacementsOf(
  state: SharedState,
  remote: RemoteSnapshot,
  records: ReadonlyMap<string, RecordEntry>,
  summaries: ReadonlyMap<string, Pick<DocumentSummary, 'namedHere'>>,
  local: ReadonlyMap<string, LocalEntry>,
): Map<string, Replacement> {
  const out = new Map<string, Replacement>();
  const paired = new Set<string>([...records.values()].map((record) => record.docKey));
  // Pulled knowing no writer's record of the document (its path made here from the title), and unchanged since.
  const copies = new Map([...records.values()].filter((record) => summaries.get(record.path)?.namedHere === true && sideOfLocal(record, local.get(record.path)) === 'unchanged').map((record) => [record.docKey as string, record.path]));
  const pairedButCopies = new Set([...paired].filter((docKey) => !copies.has(docKey)));
  const entryOf = new Map([...state.entries.values()].map((entry) => [entry.k, entry]));
  for (const record of records.values()) {
    if (remote.docs.has(record.docKey)) continue;
    const edited = sideOfLocal(record, local.get(record.path)) === 'changed';
    const key = standIn(state, remote, record.docKey, edited ? pairedButCopies : paired);
    const listed = key === undefined ? undefined : remote.docs.get(asDocKey(key));
    if (key === undefined || !listed) continue;
    paired.add(key);
    pairedButCopies.add(key);
    const entry = entryOf.get(key);
    const nodeId = state.nodeIds.get(key);
    const absorbs = copies.get(key);
    out.set(record.path, {
      docKey: listed.docKey,
      path: entry?.p ?? listed.localPath,
      nodeId: nodeId === undefined ? null : asCreationNodeId(nodeId),
      origin: entry?.o ?? 'pulled',
      modifiedTime: entry?.m ?? '',
      ...(absorbs !== undefined ? { absorbs } : {}),
    });
  }
  return out;
}

/**
 * Recorded files whose document is gone and which another kbsync writer replaced by a document the listing shows,
 * paired here or not, by path: the path that writer gave the page (PlanInput.movedAway).
 */
export function movedAway(state: SharedState, remote: RemoteSnapshot, records: ReadonlyMap<string, RecordEntry>): Map<string, string> {
  const out = new Map<string, string>();
  const entryOf = new Map([...state.entries.values()].map((entry) => [entry.k, entry]));
  for (const record of records.values()) {
    if (remote.docs.has(record.docKey)) continue;
    const key = standIn(state, remote, record.docKey, new Set());
    const listed = key === undefined ? undefined : remote.docs.get(asDocKey(key));
    if (key !== undefined && listed) out.set(record.path, entryOf.get(key)?.p ?? listed.localPath);
  }
  return out;
}
