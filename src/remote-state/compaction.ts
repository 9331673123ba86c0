import type { Logger } from '../log.js';
import type { Stamped } from './codec.js';
import { bySeq, type StateDoc } from './documents.js';
import { foldState, type SharedState } from './state.js';
import { GRACE_MS, type LoadedState, type RemoteStateStore } from './store.js';

/**
 * Keeping the state small without losing a record another writer appends meanwhile. No writer ever
 * deletes a document it just superseded: a compaction writes the live records (each with the stamp it was
 * first written with) into fresh documents and retires the old ones by a record. Writers append only to a
 * document they confirmed newest within half the grace period (append.ts), so once the grace period has
 * passed nothing more can land in a retired document. Then any writer that can delete it (it holds its
 * creation id: from a verified record with the team's key, or because it made it) reads it one last time,
 * copies every token no current document holds, and deletes it. A retirement by anyone is therefore safe
 * even if it was not kbsync's: nothing is deleted that is not also somewhere else.
 *
 * A compaction retires only what a writer can delete once retired, and never a document retired already: a
 * retirement nobody can finish would leave the old documents beside their copies for good, and compacting
 * them again (a keyless team's CI jobs, which can delete no document an earlier job made) grew the state by a
 * full copy on every run. What the documents that stay hold as it is, is not copied again.
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
  /** Told at the named step (the crash matrix kills the process there; a test holds it there). */
  readonly onStep?: (step: 'mid-compaction') => void | Promise<void>;
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
  // A record kept as it is; one the fold completed (a creation id learnt from a record only the retired
  // documents hold) is written again, completed.
  const keptAsIs = heldAsIs(loaded, (docKey) => !retired.has(docKey));
  const late: Stamped[] = [];
  for (const { doc } of deletable) {
    if (doc.family !== 'state') continue;
    // Read once more, now that nothing can be appended to it any more.
    late.push(...((await deps.store.readTokens(doc)) ?? []).flatMap((token) => token.records));
  }
  // What those documents say that the kept ones do not (another writer's append after the compaction read
  // them, or anything at all if the retirement was not a real compaction's): copied on, stamps kept.
  const kept = [...loaded.records].filter(([docKey]) => !retired.has(docKey)).flatMap(([, records]) => records);
  const missing = foldState([...kept, ...late]).live.filter((stamped) => stamped.record.t !== 'retire' && !keptAsIs.has(keyOf(stamped)));
  if (missing.length > 0) await deps.store.appendTokens(deps.store.encodeCopies(missing));
  const sourcesHeld = new Set([...state.sourceDocs].filter(([, docs]) => docs.some((docKey) => !retired.has(docKey))).map(([hash]) => hash));
  const live = liveSources(state);
  for (const { doc, nodeId } of deletable) {
    if (doc.family === 'sources') {
      // A source another writer kept here late (and no other document has) moves on before this one goes.
      const wanted = [...live].filter((hash) => !sourcesHeld.has(hash) && (state.sourceDocs.get(hash) ?? []).includes(doc.docKey));
      const texts = await deps.store.sources(new Set(wanted));
      await deps.store.publish([], [...texts].map(([hash, text]) => ({ hash, text })));
    }
    await deps.store.deleteDocument(nodeId);
  }
  deps.logger.info({ documents: deletable.length }, `deleted ${deletable.length} state document(s) a compaction retired`);
  return true;
}

async function startCompaction(deps: CompactionDeps, loaded: LoadedState, state: SharedState, written: readonly Stamped[], bind: boolean): Promise<void> {
  const plan = planCompaction(deps, loaded, state, written, bind);
  if (!plan) return;
  const before = new Set(deps.store.madeIds().keys());
  // The sources first: the index then names where each one now is.
  const places = plan.sources.length > 0 ? await deps.store.placeSources([...(await deps.store.sources(plan.toPlace))].map(([hash, text]) => ({ hash, text })), { fresh: true }) : [];
  // Written last among the copies (a later stamp than any): the state is bound to its folder once all of them are in.
  const marker = bind && state.team ? deps.store.encode([{ ...state.team, b: 1 }]) : [];
  if (plan.copies) await deps.store.appendTokens([...plan.copies, ...deps.store.encode(places), ...marker], { fresh: true });
  await deps.onStep?.('mid-compaction');
  const copies = [...deps.store.madeIds().keys()].filter((docKey) => !before.has(docKey));
  if (await rivalled(deps.store, loaded, copies)) {
    // Another writer's compaction ran at once (two CI jobs of one commit) and its copies are the newer: this
    // one's copies are retired instead of the documents both read, so the two fold to one set of copies.
    await deps.store.publish([{ t: 'retire', docs: copies }]);
    deps.logger.info({ documents: copies.length }, 'another writer compacted the shared state at the same time: this run retired its own copies');
    return;
  }
  const retire = [...plan.index, ...plan.sources].map((doc) => doc.docKey);
  // Last, once every copy is written: a crash before it leaves copies (read twice, harmless), never a retirement without them.
  await deps.store.publish([...(plan.copies ? [] : places), ...(retire.length > 0 ? [{ t: 'retire' as const, docs: retire }] : [])]);
  deps.logger.info({ documents: retire.length }, `compacted kbsync's state in the knowledge base (${retire.length} documents retired, deleted after ${GRACE_MS / 60_000} minutes)`);
}

type CompactionPlan = {
  /** Index documents to retire (none: the index is not compacted). */
  readonly index: readonly StateDoc[];
  /** Sources documents to retire (none: the sources are not compacted). */
  readonly sources: readonly StateDoc[];
  /** The index's live records, as tokens, that the documents which stay do not hold as they are (undefined: the index is not written anew). */
  readonly copies: readonly string[] | undefined;
  /** The live sources no document that stays holds: kept anew. */
  readonly toPlace: ReadonlySet<string>;
};

/**
 * What a compaction would retire and write, or undefined when it is not worth it: the index when the
 * documents it would retire weigh more than twice their copies, or when it is to be bound to its folder
 * (`bind`: then every live record is copied, whatever the documents that stay hold, signed as they could
 * not be read once bound); the sources when they hold more dead texts than live ones (or a document the
 * index does not map).
 */
function planCompaction(deps: CompactionDeps, loaded: LoadedState, state: SharedState, written: readonly Stamped[], bind: boolean): CompactionPlan | undefined {
  const current = loaded.docs.filter((doc) => !state.retired.has(doc.docKey));
  const retirable = new Set<string>(current.filter((doc) => deps.deletableId(doc.docKey, state) !== undefined).map((doc) => doc.docKey));
  const index = current.filter((doc) => doc.family === 'state');
  const indexOut = index.filter((doc) => retirable.has(doc.docKey));
  const sourcesOut = current.filter((doc) => doc.family === 'sources' && retirable.has(doc.docKey));

  const live = liveSources(state);
  const keptSources = new Set<string>(current.filter((doc) => doc.family === 'sources' && !retirable.has(doc.docKey)).map((doc) => doc.docKey));
  const toPlace = new Set([...live].filter((hash) => !(state.sourceDocs.get(hash) ?? []).some((docKey) => keptSources.has(docKey))));
  const leaving = new Set<string>(sourcesOut.map((doc) => doc.docKey));
  const dead = [...state.sourceDocs].filter(([hash, docs]) => !live.has(hash) && docs.some((docKey) => leaving.has(docKey))).length;
  const mapped = new Set([...state.sourceDocs.values()].flat());
  const compactSources = sourcesOut.length >= 2 && (dead > toPlace.size || sourcesOut.some((doc) => !mapped.has(doc.docKey)));

  // A retirement's own record is done with, but for documents it retired that stay listed (nobody could
  // delete them yet). The sources' places are written anew for the sources documents retired now. The ids
  // of state documents that are gone are of no more use (those still listed may yet be deleted).
  const listed = new Set<string>(loaded.docs.map((doc) => doc.docKey));
  const out = new Set<string>([...indexOut, ...(compactSources ? sourcesOut : [])].map((doc) => doc.docKey));
  const records = state.live.flatMap((s): Stamped[] => {
    const { record } = s;
    if (record.t === 'retire') {
      const still = record.docs.filter((docKey) => listed.has(docKey) && !out.has(docKey));
      return still.length > 0 ? [{ ...s, record: { ...record, docs: still } }] : [];
    }
    if (compactSources && record.t === 'src' && leaving.has(record.d)) return [];
    if (record.t === 'journal' && !listed.has(record.k)) return [];
    return oldTombstone(s, deps.now()) ? [] : [s];
  });
  // What the documents that stay hold as it is (the retired ones too, until the writer that deletes them copies it on).
  const keptAsIs = bind ? new Set<string>() : heldAsIs(loaded, (docKey) => !out.has(docKey));
  const copies = deps.store.encodeCopies(records.filter((s) => !keptAsIs.has(keyOf(s))));
  // What the documents to retire hold: what was read, and what this run appended since.
  const held = indexOut.reduce((sum, doc) => sum + doc.chars, 0) + deps.store.encodeCopies(written).join(' ').length;
  const compactIndex = (bind && index.length > 0) || (index.length >= 3 && indexOut.length > 0 && copies.join(' ').length * 2 < held);
  if (!compactIndex && !compactSources) return undefined;
  return { index: compactIndex ? indexOut : [], sources: compactSources ? sourcesOut : [], copies: compactIndex ? copies : undefined, toPlace: compactSources ? toPlace : new Set() };
}

/**
 * Whether another writer started documents since this compaction read the state (its own compaction, most
 * likely), and one of them sorts after this compaction's newest copy: of two compactions that see each
 * other, exactly one withdraws. One that sees none goes on (two that do not see each other both do, and the
 * next compaction folds their copies).
 */
async function rivalled(store: RemoteStateStore, loaded: LoadedState, copies: readonly string[]): Promise<boolean> {
  if (copies.length === 0) return false;
  store.forgetListing();
  const now = await store.documents();
  const read = new Set<string>(loaded.docs.map((doc) => doc.docKey));
  const made = store.madeIds();
  const ours = now.filter((doc) => copies.includes(doc.docKey)).sort(bySeq).at(-1);
  const theirs = now.filter((doc) => doc.family === ours?.family && !read.has(doc.docKey) && !made.has(doc.docKey));
  return ours !== undefined && theirs.some((doc) => bySeq(doc, ours) > 0);
}

/** The texts the state still needs: every entry's, and every announced write's (write records). */
function liveSources(state: SharedState): Set<string> {
  return new Set([...state.entries.values(), ...state.writes.values()].map((entry) => entry.h).filter((hash) => hash !== ''));
}

/** The records the documents `kept` hold, as read: a record written again only when it differs. */
function heldAsIs(loaded: LoadedState, kept: (docKey: string) => boolean): Set<string> {
  return new Set([...loaded.records].filter(([docKey]) => kept(docKey)).flatMap(([, records]) => records.map(keyOf)));
}

const keyOf = (stamped: Stamped): string => `${stamped.c}/${stamped.w}/${stamped.i} ${JSON.stringify(stamped.record)}`;

/** `gone` records are kept for 30 days: a late copy of a document's older records cannot bring it back meanwhile. */
const oldTombstone = (stamped: Stamped, now: number): boolean => stamped.record.t === 'gone' && stamped.c > 0 && now - stamped.c > 30 * 24 * 60 * 60 * 1000;
