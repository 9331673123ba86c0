import type { Logger } from '../log.js';
import type { Stamped } from './codec.js';
import type { StateDoc } from './documents.js';
import { foldState, type SharedState } from './state.js';
import { GRACE_MS, type LoadedState, type RemoteStateStore } from './store.js';

/**
 * Keeping the state small without losing a record another writer appends meanwhile. No writer ever
 * deletes a document it just superseded: a compaction writes the live records (each with the stamp it was
 * first written with) into fresh documents and retires the old ones by a record. Writers append only to a
 * document they confirmed newest within half the grace period (store.ts), so once the grace period has
 * passed nothing more can land in a retired document. Then any writer that can delete it (it holds its
 * creation id: from a verified record with the team's key, or because it made it) reads it one last time,
 * copies every token no current document holds, and deletes it. A retirement by anyone is therefore safe
 * even if it was not kbsync's: nothing is deleted that is not also somewhere else.
 *
 * So the index stays within twice its live records (or three documents, whichever is more), and the
 * sources within twice the live sources (or two documents), plus, for the grace period after a
 * compaction, the documents it retired.
 */
type CompactionDeps = {
  readonly store: RemoteStateStore;
  readonly logger: Logger;
  readonly now: () => number;
  /** The creation id this writer may use to delete a state document (undefined: it may not). */
  readonly deletableId: (docKey: string, state: SharedState) => string | undefined;
  /** Told at the named step (the crash matrix kills the process there). */
  readonly onStep?: (step: 'mid-compaction') => void;
};

/**
 * After a run's records are appended: retirements that are due are finished, and a compaction started when one
 * is worth it, or when the state holds tokens signed for the workspace alone (written before records were
 * bound to their synced folder): then every live record is copied, signed bound, with the team record saying
 * so (b), after which no kbsync reads an unbound token in this folder's state (a copy of another folder's).
 */
export async function maintainState(deps: CompactionDeps, loaded: LoadedState, written: readonly Stamped[]): Promise<void> {
  const state = foldState([...loaded.state.live, ...written]);
  const retiring = loaded.docs.filter((doc) => state.retired.has(doc.docKey));
  // Documents deleted now make this run's view of the state out of date: a compaction waits for the next run.
  if (await finishRetirements(deps, loaded, state, retiring)) return;
  // One compaction at a time: a new one waits until the last one's grace period is over.
  if (retiring.some((doc) => (state.retired.get(doc.docKey) ?? 0) + GRACE_MS >= deps.now())) return;
  await startCompaction(deps, loaded, state, written, loaded.authenticated && loaded.workspaceBound > 0);
}

/** Deletes the retired documents whose grace period is over (after copying on what only they hold); true when any was. */
async function finishRetirements(deps: CompactionDeps, loaded: LoadedState, state: SharedState, retiring: readonly StateDoc[]): Promise<boolean> {
  const due = retiring.filter((doc) => (state.retired.get(doc.docKey) ?? Infinity) + GRACE_MS < deps.now());
  const deletable = due.flatMap((doc) => {
    const nodeId = deps.deletableId(doc.docKey, state);
    return nodeId ? [{ doc, nodeId }] : [];
  });
  if (deletable.length === 0) return false;
  const retired = new Set<string>(retiring.map((doc) => doc.docKey));
  // What the documents that stay hold, record by record (a compaction's copies keep their stamps).
  const kept = [...loaded.records].filter(([docKey]) => !retired.has(docKey)).flatMap(([, records]) => records);
  // A record kept as it is; one the fold completed (a creation id learnt from a record only the retired
  // documents hold) is written again, completed.
  const keptAsIs = new Set(kept.map((stamped) => `${stampOf(stamped)} ${JSON.stringify(stamped.record)}`));
  const late: Stamped[] = [];
  for (const { doc } of deletable) {
    if (doc.family !== 'state') continue;
    // Read once more, now that nothing can be appended to it any more.
    late.push(...((await deps.store.readTokens(doc)) ?? []).flatMap((token) => token.records));
  }
  // What those documents say that the kept ones do not (another writer's append after the compaction read
  // them, or anything at all if the retirement was not a real compaction's): copied on, stamps kept.
  const missing = foldState([...kept, ...late]).live.filter((stamped) => stamped.record.t !== 'retire' && !keptAsIs.has(`${stampOf(stamped)} ${JSON.stringify(stamped.record)}`));
  if (missing.length > 0) await deps.store.appendTokens(deps.store.encodeCopies(missing));
  const sourcesHeld = new Set([...state.sourceDocs].filter(([, docs]) => docs.some((docKey) => !retired.has(docKey))).map(([hash]) => hash));
  const live = new Set([...state.entries.values()].map((entry) => entry.h));
  for (const { doc, nodeId } of deletable) {
    if (doc.family === 'sources') {
      // A source another writer kept here late (and no other document has) moves on before this one goes.
      const wanted = [...live].filter((hash) => hash !== '' && !sourcesHeld.has(hash) && (state.sourceDocs.get(hash) ?? []).includes(doc.docKey));
      const texts = await deps.store.sources(new Set(wanted));
      await deps.store.publish([], [...texts].map(([hash, text]) => ({ hash, text })));
    }
    await deps.store.deleteDocument(nodeId);
  }
  deps.logger.info({ documents: deletable.length }, `deleted ${deletable.length} state document(s) a compaction retired`);
  return true;
}

async function startCompaction(deps: CompactionDeps, loaded: LoadedState, state: SharedState, written: readonly Stamped[], bind: boolean): Promise<void> {
  const index = loaded.docs.filter((doc) => doc.family === 'state');
  const sources = loaded.docs.filter((doc) => doc.family === 'sources');
  const liveHashes = new Set([...state.entries.values()].map((entry) => entry.h).filter((hash) => hash !== ''));
  const mapped = new Set([...state.sourceDocs.values()].flat());
  const deadSources = [...state.sourceDocs.keys()].filter((hash) => !liveHashes.has(hash)).length;
  const compactSources = sources.length >= 2 && (deadSources > liveHashes.size || sources.some((doc) => !mapped.has(doc.docKey)));
  // A retirement's own record is done with, and the sources' places are written anew when the sources are.
  // The ids of state documents that are gone are of no more use (those still listed may yet be deleted).
  const listed = new Set<string>(loaded.docs.map((doc) => doc.docKey));
  const live = state.live.filter(
    (s) => s.record.t !== 'retire' && !(compactSources && s.record.t === 'src') && !(s.record.t === 'journal' && !listed.has(s.record.k)) && !oldTombstone(s, deps.now()),
  );
  const copies = deps.store.encodeCopies(live);
  // What the index holds now: what was read, and what this run appended since.
  const held = loaded.chars + deps.store.encodeCopies(written).join(' ').length;
  const compactIndex = (bind && index.length > 0) || (index.length >= 3 && copies.join(' ').length * 2 < held);
  if (!compactIndex && !compactSources) return;
  // The sources first: the index then names where each one now is.
  const places = compactSources ? await deps.store.placeSources([...(await deps.store.sources(liveHashes))].map(([hash, text]) => ({ hash, text })), { fresh: true }) : [];
  // Written last among the copies (a later stamp than any): the state is bound to its folder once all of them are in.
  const marker = bind && state.team ? deps.store.encode([{ ...state.team, b: 1 }]) : [];
  if (compactIndex) await deps.store.appendTokens([...copies, ...deps.store.encode(places), ...marker], { fresh: true });
  deps.onStep?.('mid-compaction');
  const retire = [...(compactIndex ? index : []), ...(compactSources ? sources : [])].map((doc) => doc.docKey);
  // Last, once every copy is written: a crash before it leaves copies (read twice, harmless), never a retirement without them.
  await deps.store.publish([...(compactIndex ? [] : places), { t: 'retire', docs: retire }]);
  deps.logger.info({ documents: retire.length }, `compacted kbsync's state in the knowledge base (${retire.length} documents retired, deleted after ${GRACE_MS / 60_000} minutes)`);
}

const stampOf = (stamped: Stamped): string => `${stamped.c}/${stamped.w}/${stamped.i}`;

/** `gone` records are kept for 30 days: a late copy of a document's older records cannot bring it back meanwhile. */
const oldTombstone = (stamped: Stamped, now: number): boolean => stamped.record.t === 'gone' && stamped.c > 0 && now - stamped.c > 30 * 24 * 60 * 60 * 1000;
