import { createHash } from 'node:crypto';
import type { DocumentSummary, Ledger, SummaryCursor } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import { sharedImagesOf } from '../../images/sent.js';
import type { Stamped } from '../../remote-state/codec.js';
import type { DocRecord, StateRecord, TeamRecord } from '../../remote-state/records.js';
import { explainsFound, goneKey, inDoubt, ofSameBlocks, readingOfSource, saysMoreOfSameBlocks, saysMoreThan, type SharedState, type StateEntry } from '../../remote-state/state.js';
import type { LoadedState, RemoteStateStore, Source } from '../../remote-state/store.js';
import { crashPoint } from '../run/crash-points.js';
import type { PendingGone } from './pending-gone.js';
import { AGREED_SLACK_MS } from '../decide/body.js';

/** A source's hash as records carry it (a record with another in `b` would be dropped by every reader). */
const SOURCE_HASH = /^[0-9a-f]{64}$/;

/**
 * What the shared state should say of one ledger row. A modified time this machine is not sure of (it
 * still re-checks it: its own write's, or a listing made before a read another writer's write may have
 * fallen between) is published with `r`: another machine reads the document before trusting it (taking it
 * for certain would see every later listing as a remote edit, and hold that file's changes and its deletion
 * for good), and still sees an edit made after it (a colleague's edit inside code reads the same otherwise).
 */
export function stateRecordOf(row: DocumentSummary, members: DocRecord['mem'] = [], body?: { readonly agreedAt: number; readonly builtOn: string | null }): DocRecord {
  return {
    t: 'doc',
    p: row.path,
    k: row.docKey,
    n: row.nodeId,
    h: row.localHash,
    rb: row.remoteBlocksHash,
    m: row.remoteModifiedTime,
    ...(row.recheck ? { r: 1 as const } : {}),
    o: row.origin,
    ...(members.length > 0 ? { mem: members } : {}),
    ...sharedImagesOf(row.imagesSent),
    // The document holds more than the source: a colleague's edit read as plain text, or one reads cannot show at all.
    ...(row.inexact ? { l: 1 as const } : {}),
    // ... and all it holds beyond it is the formatting of words a colleague wrote (merge.webEdits decides).
    ...(row.inexactFormatting ? { f: 1 as const } : {}),
    // ... and whether that is an edit reads cannot show, or a visible one taken in on a page reads cannot show whole
    // (said with every `l`, so that a record without it is known for an older kbsync's).
    ...(row.inexact ? { hd: row.inexactHidden ? (1 as const) : (0 as const) } : {}),
    ...(body && body.agreedAt > 0 ? { a: body.agreedAt } : {}),
    // What it was made from: like `a`, no part of what the version is (hashOf), so never a reason to publish again.
    ...(body?.builtOn != null && SOURCE_HASH.test(body.builtOn) ? { b: body.builtOn } : {}),
    ...(row.headCarried ? { hc: 1 as const } : {}),
    ...(row.namedHere ? { nt: 1 as const } : {}),
    ...(row.readPlainly ? { pr: 1 as const } : {}),
  };
}

/**
 * What a record says, members aside (they change only with the file, which changes the record anyway). A
 * time still to be re-checked counts as unknown: learning it is not news another machine needs.
 */
export const hashOf = (record: Omit<DocRecord, 't'> & { readonly t?: 'doc' }): string => {
  // Images only count when there are some, so rows published before images were tracked keep their hash; so
  // does `l`, which another machine needs to know as soon as this one learns it (model seed 50013). `hd` comes
  // with every `l`: a row published with `l` before it is published once more, so its record tells apart.
  const fields = [record.p, record.k, record.n, record.h, record.rb, record.r === 1 ? '' : record.m, record.o, ...(record.im ? [record.im] : []), ...(record.l === 1 ? ['l'] : []), ...(record.f === 1 ? ['f'] : []), ...(record.hd !== undefined ? [`hd${record.hd}`] : []), ...(record.hc === 1 ? ['hc'] : []), ...(record.pr === 1 ? ['pr'] : [])];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 16);
};

/**
 * The ledger's mark of what it published for a row: the record's hash and the clock it was written with
 * (`<hash>@<clock>`; marks written before records carried a clock have no clock). With the clock, a state
 * entry that differs can be told apart: older than ours (ours was lost: publish again) or newer (another
 * writer's later record: it stands).
 */
export const markOf = (hash: string, clock: number): string => `${hash}@${clock}`;
export function parseMark(mark: string | null): { readonly hash: string; readonly clock: number | undefined } | undefined {
  if (mark === null) return undefined;
  const at = mark.indexOf('@');
  return at < 0 ? { hash: mark, clock: undefined } : { hash: mark.slice(0, at), clock: Number(mark.slice(at + 1)) };
}

/**
 * The mark of a row this machine has just written, until its record is published: no record's hash, so the
 * publish step sends the record even when it says what the state already says but for the time (a time still
 * re-checked does not count in the hash). The clock of the last record published stays, for what compares
 * against it (a rename made elsewhere since).
 */
const WRITTEN = 'written';
export function writtenMark(prior: string | null): string {
  const clock = parseMark(prior)?.clock;
  return clock === undefined ? WRITTEN : markOf(WRITTEN, clock);
}

/**
 * The hash a row is published under, kept per summary object: a summary never changes, and the daemon
 * keeps the same objects for the rows it did not write (DocumentsRepo.keepSummaries), so after a push only
 * the rows just written are hashed again, not all 10,000 (two sha256 each, about 85 ms a cycle).
 */
const hashes = new WeakMap<DocumentSummary, string>();

function publishedHashOf(row: DocumentSummary): string {
  let hash = hashes.get(row);
  if (hash === undefined) {
    const record = stateRecordOf(row);
    // A re-check that only learnt the modified time of our own write changes nothing another machine needs:
    // it re-checks once itself. Republishing it would cost every push a second append.
    const published = parseMark(row.publishedRecord)?.hash;
    hash = published === hashOf({ ...record, r: 1 }) ? published : hashOf(record);
    hashes.set(row, hash);
  }
  return hash;
}

/**
 * After a read-back that found this machine's own write standing (decide/read-back.ts): the row stays marked as
 * published, under its new hash, when the shared state had its record of the write. That record says the
 * prediction's hash and `r`, so a reader reads the document first and takes a read agreeing with the prediction
 * as standing for it: the read-back tells it nothing (as a time learnt by a re-check does not). Republishing
 * would cost every written document's next run an append, and the read of the state before it.
 */
export function keepPublishedOverReadBack(ledger: Ledger, prior: DocumentSummary): void {
  const mark = parseMark(prior.publishedRecord);
  if (mark === undefined || mark.hash !== publishedHashOf(prior)) return;
  const row = ledger.documents.summary(prior.path);
  if (!row) return;
  const hash = publishedHashOf(row);
  ledger.documents.update(prior.path, { publishedRecord: mark.clock === undefined ? hash : markOf(hash, mark.clock) });
}

/** A row changed since it was published (or its record was never answered): its mark is not its hash. */
const changedSincePublished = (row: DocumentSummary): boolean => parseMark(row.publishedRecord)?.hash !== publishedHashOf(row);

/**
 * The paths of the rows changedSincePublished, kept per ledger whose summaries are kept (the daemon's) and
 * brought up to date from the rows re-read since (DocumentsRepo.summaryChanges): a save looks at the rows it
 * wrote, not at all 10,000 (parsing each mark and looking up each hash was most of a publish's own time).
 */
const changedRows = new WeakMap<Ledger['documents'], { readonly cursor: SummaryCursor; readonly paths: Set<string> }>();

/** SQLite's order of paths (BINARY: their UTF-8 bytes), the order allSummaries() gives them in. */
const byStoredPath = (a: DocumentSummary, b: DocumentSummary): number => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));

/** The rows changed since they were published, in allSummaries() order. */
function unpublishedRows(ledger: Ledger): DocumentSummary[] {
  const documents = ledger.documents;
  const kept = changedRows.get(documents);
  const changes = documents.summaryChanges(kept?.cursor);
  if (changes === undefined) return documents.allSummaries().filter(changedSincePublished);
  const byPath = documents.summariesByPath();
  const paths = kept && changes.paths ? kept.paths : new Set<string>();
  for (const path of changes.paths && kept ? changes.paths : byPath.keys()) {
    const row = byPath.get(path);
    if (row && changedSincePublished(row)) paths.add(path);
    else paths.delete(path);
  }
  changedRows.set(documents, { cursor: changes.cursor, paths });
  return [...paths].flatMap((path) => byPath.get(path) ?? []).sort(byStoredPath);
}

/** Is there anything this ledger has not told the shared state (so a run must read and write it)? */
function hasUnpublished(ledger: Ledger, removed: ReadonlyMap<string, PendingGone>): boolean {
  if (removed.size > 0 || ledger.images.unpublished().length > 0) return true;
  return unpublishedRows(ledger).length > 0;
}

type Published = { readonly records: number; readonly sources: number; readonly written: readonly Stamped[] };

/** What a run publishes of the team's settings over what the state holds (undefined: nothing), and keeps once it did. */
export type TeamPublication = { published(held: TeamRecord | undefined, bound: boolean): TeamRecord | undefined; remember(team: TeamRecord): void };

/**
 * Brings the knowledge base's shared state up to this ledger, after a run. The state is read first (or
 * as this run read it), so each row is compared with what the state now says of its path: a record that
 * is missing, or older than what this ledger published (lost to a compaction race, or appended where it
 * lost), is published again, and a newer record of another writer stands. A source another writer already
 * kept is not kept twice. Then one append of the records and one of the sources (two calls, whatever the
 * number of files), each confirmed; zero calls when nothing differs.
 */
export async function publishState(deps: {
  readonly ledger: Ledger;
  readonly store: RemoteStateStore;
  readonly logger: Logger;
  readonly loaded: LoadedState | undefined;
  /** Documents this run stopped tracking (deleted, moved away, forgotten): docKey → the path they had (and the version deleted). */
  readonly removed: ReadonlyMap<string, PendingGone>;
  /** This run took in another writer's change: that writer's later record (a rename, say) is read before anything is published over it. */
  readonly pulled?: boolean;
  /** The team's settings as this run reads the folder with them (state/team.ts): published where the state lacks them. */
  readonly team?: TeamPublication;
}): Promise<Published> {
  const { ledger, store } = deps;
  const read = deps.loaded ?? store.loaded;
  if (read === undefined && !hasUnpublished(ledger, deps.removed)) return { records: 0, sources: 0, written: [] };
  // Read first unless this run read it, or a writer that keeps writing read it within the last minutes
  // (store.needsLoad): its appends then go where the last run's went, and its records win by their clocks.
  const loaded = read ?? (store.needsLoad || deps.pulled === true ? await store.load() : undefined);
  const plan = planPublication(ledger, loaded, deps.removed, (hash) => store.hasSource(hash), store.clock.writer);
  // The settings every machine reads the folder with: published by the first run that reads a state without them
  // (an existing team's first run after the upgrade), and whenever this run knows one the state does not say yet.
  const team = loaded && deps.team ? deps.team.published(loaded.state.team, loaded.workspaceBound === 0) : undefined;
  if (team) plan.records.push(team);
  const written = plan.records.length + plan.sources.length > 0 ? await store.publish(plan.records, plan.sources) : [];
  crashPoint('after-state-append');
  const clocks = clocksOf(written);
  ledger.transaction(() => {
    for (const mark of plan.marks) ledger.documents.update(mark.path, { publishedRecord: markOf(mark.hash, clocks.get(mark.path) ?? mark.clock), publishedSource: mark.source });
    ledger.images.markPublished(plan.images);
  });
  if (team) deps.team?.remember(team);
  return { records: plan.records.length, sources: plan.sources.length, written };
}

/**
 * The mark of a row whose state entry says what it does (undefined: it does not), allowing for two things
 * this machine knows differently and need not tell: the creation id it did not take from the entry (an
 * unauthenticated state's ids are not used here, so the row has none), and a modified time the entry's
 * writer still re-checks that this machine has since learnt by a read (as that writer does once itself:
 * publishing it would make a fresh checkout or a lost ledger write on a run with nothing to do, and a time
 * a reader learnt is no more certain for the next reader, who re-checks it anyway).
 */
function agreement(held: StateEntry, row: DocumentSummary, hash: string): string | undefined {
  if (hashOf(held) === hash) return hash;
  const record = stateRecordOf(row);
  const mine = held.r === 1 || held.m === '' ? { ...record, r: 1 as const } : record;
  const theirs = row.nodeId === null && held.n !== null ? { ...mine, n: held.n } : mine;
  return hashOf(held) === hashOf(theirs) ? hashOf(mine) : undefined;
}

/** The clock each path's record was written with. */
export function clocksOf(written: readonly Stamped[]): Map<string, number> {
  return new Map(written.flatMap(({ record, c }) => (record.t === 'doc' ? [[record.p, c] as const] : [])));
}

type Publication = {
  readonly records: StateRecord[];
  readonly sources: Source[];
  readonly marks: { readonly path: string; readonly hash: string; readonly clock: number; readonly source: string | null }[];
  readonly images: string[];
};

function planPublication(ledger: Ledger, loaded: LoadedState | undefined, removed: ReadonlyMap<string, PendingGone>, hasSource: (hash: string) => boolean, ownWriter?: string): Publication {
  const state = loaded?.state;
  const out: Publication = { records: [], sources: [], marks: [], images: [] };
  const entryOfDoc = new Map([...(state?.entries.values() ?? [])].map((entry) => [entry.k, entry]));
  // Without the state read, a row published as it is stands as published (below): only the others are looked at.
  for (const row of state === undefined ? unpublishedRows(ledger) : ledger.documents.allSummaries()) {
    const hash = publishedHashOf(row);
    const held = state?.entries.get(row.path);
    const agreed = held && parseMark(row.publishedRecord)?.hash !== WRITTEN ? agreement(held, row, hash) : undefined;
    if (held !== undefined && agreed !== undefined) {
      // The state says what this ledger does: nothing to write (a mark written before clocks gets its clock).
      if (parseMark(row.publishedRecord)?.clock === undefined || parseMark(row.publishedRecord)?.hash !== agreed) out.marks.push({ path: row.path, hash: agreed, clock: held.c, source: row.localHash });
      continue;
    }
    const mark = parseMark(row.publishedRecord);
    const entry = held ?? entryOfDoc.get(row.docKey);
    // Without the state read, a row published as it is stands as published.
    if (state === undefined ? mark?.hash === hash : !needsPublishing(row, hash, entry)) continue;
    if (state !== undefined && entry === undefined && endedSince(state, row, mark?.clock)) continue;
    const full = ledger.documents.get(row.path);
    if (entry && !readingOfOurs(row, entry) && (followed(row, mark, entry, ownWriter) || (full && overtaken(row, full, entry)) || saysMore(row, entry, full?.builtOn ?? null))) {
      // Another writer's later record stands. The row is marked as answered (its hash), so that a later run
      // that publishes without reading the state does not set this older view over it after all (model seed
      // 90009); the clock stays that of this ledger's own last record, which that later record is newer than
      // (a rename made elsewhere is still followed). The source kept is that record's when the file holds its
      // text; otherwise what this ledger kept stays so.
      const source = entry.h === row.localHash ? row.localHash : row.publishedSource;
      if (mark?.hash !== hash) out.marks.push({ path: row.path, hash, clock: mark?.clock ?? 0, source });
      continue;
    }
    out.records.push(stateRecordOf(row, full?.members ?? [], full));
    const kept = held?.h === row.localHash || hasSource(row.localHash) || (state === undefined && row.publishedSource === row.localHash);
    if (full && row.localHash !== '' && !kept && !out.sources.some((source) => source.hash === row.localHash)) out.sources.push({ hash: row.localHash, text: full.baseMarkdown });
    out.marks.push({ path: row.path, hash, clock: 0, source: row.localHash });
  }
  for (const [docKey, { path, deleted }] of removed) {
    // A delete names the version deleted: another machine's version made from it is an edit the delete could not see.
    const version = deleted !== undefined && SOURCE_HASH.test(deleted) ? { h: deleted } : {};
    if (state === undefined || state.entries.get(path)?.k === docKey || entryOfDoc.get(docKey)?.p === path) out.records.push({ t: 'gone', p: path, k: docKey, ...version });
  }
  // Image URLs uploaded here: every machine and CI run reuses them instead of uploading again.
  for (const image of ledger.images.unpublished()) {
    if (state?.images.get(image.key) !== image.url) out.records.push({ t: 'img', k: image.key, u: image.url });
    out.images.push(image.key);
  }
  for (const folder of ledger.folders.all()) {
    if (folder.path === '' || folder.nodeId === null || state === undefined || state.folders.has(folder.path)) continue;
    out.records.push({ t: 'dir', p: folder.path, tn: folder.treeNodeId, n: folder.nodeId });
  }
  return out;
}

/**
 * Whether a row the state does not agree with is to be published: when it changed since it was published,
 * or the state has no record of its path or document, or that record is older than the one this ledger
 * published (another writer's later record stands: this machine learns of that change from the document).
 */
function needsPublishing(row: DocumentSummary, hash: string, held: StateEntry | undefined): boolean {
  const mark = parseMark(row.publishedRecord);
  if (mark?.hash !== hash || held === undefined) return true;
  return mark.clock !== undefined && held.c < mark.clock;
}

/**
 * The state holds no record of the row's path or document because another writer ended them there (a `gone`), after
 * this ledger's last record of the row and its own move of the file: that writer deleted the document, moved the
 * file to another one, or forgot both gone, and this machine has not listed since (a push lists nothing). The row
 * is older knowledge: published, its record would stand over that `gone` by its later stamp, and every checkout
 * without a ledger would pair the path with a deleted document (model seed 7329: a keyless CI job of the mover's
 * folder, which has nothing to publish, forgot it, and wrote a `gone` of its own). The next run that lists learns
 * the change. A record lost to a compaction has no `gone` after it, and is published again.
 */
function endedSince(state: SharedState, row: DocumentSummary, clock: number | undefined): boolean {
  const ended = state.gone.get(goneKey(row.docKey, row.path));
  return ended !== undefined && clock !== undefined && ended > Math.max(clock, row.placedAt);
}

/**
 * The state holds a later record of the row's document than this ledger published, and this machine has
 * nothing to add to it: the file holds the text that record names (pulled from the document it published),
 * or, at the record's own path, still the text this ledger published (the row changed only by following
 * that record, a rename made elsewhere, or in what the next run pulls). Publishing would set this machine's
 * older view over the later one (its path: the rename undone on every machine). A file still at its old
 * path follows the rename on a run that reads the state.
 */
function followed(row: DocumentSummary, mark: ReturnType<typeof parseMark>, held: StateEntry, ownWriter: string | undefined): boolean {
  const clock = mark?.clock;
  // A file this machine moved (or moved after its document) since that record was written is where it is
  // now: the record's older place is no news (model seed 10021: a colleague moved a document away and on).
  if (held.k !== row.docKey || clock === undefined || held.c <= clock || held.c < row.placedAt) return false;
  // Nor is a row whose document this machine wrote since (its mark WRITTEN): the document holds its text because
  // of that write, made after the record, though the text is the one this ledger published before (model seed
  // 7337: a plain reading's text, published again exactly over the other branch's write, was taken for a follower's
  // older view and never recorded; the other machine said HIDDEN_EDIT of the write). A record of this machine's own
  // is no other writer's: a run killed after its append published that very write, and the next owes nothing.
  if (mark?.hash === WRITTEN && held.w !== ownWriter) return false;
  return held.h === row.localHash || (held.p === row.path && row.publishedSource === row.localHash);
}

/**
 * Another writer's record of the row's document agreed with the document clearly later than this row did,
 * and was written after this machine placed its file: everything the row says of the document is older
 * knowledge (the next run that changes it takes the later record in). Publishing it would set this older view
 * over the later one, by its later stamp alone (model seed 90009: a machine that had followed an earlier
 * record published its row over the record of another machine's later write, and that write's edit, inside
 * code, never reached it).
 */
function overtaken(row: DocumentSummary, full: { readonly agreedAt: number }, entry: StateEntry): boolean {
  return entry.k === row.docKey && full.agreedAt > 0 && (entry.a ?? 0) > full.agreedAt + AGREED_SLACK_MS && entry.c >= row.placedAt;
}

/**
 * The state's record of the row's document is the exact one of the very blocks this row read plainly, keeping the
 * front matter it had (`hc`): that writer's record says more of them, and this row's says nothing the fold lets
 * stand over it (remote-state/state.ts). The next run that may pull takes that version in (decide/body.ts). Not
 * when the row was made from that very version (`builtOn`): it is a later write of the same blocks, its change one
 * reads cannot show (model seed 7112: a table cell published by `--force` over a file whose front matter was carried
 * was never recorded, and the other machine kept the old cell for good).
 */
const saysMore = (row: DocumentSummary, entry: StateEntry, builtOn: string | null): boolean =>
  (row.headCarried && builtOn !== entry.h && saysMoreOfSameBlocks(entry, { ...row, inDoubt: row.inexact && !row.inexactHidden })) ||
  // A hidden edit this row found, which that writer's exact record of the very blocks accounts for (its write): the
  // fold keeps that record (remote-state/state.ts), and the next decision here drops the edit (decide/body.ts).
  (row.inexactHidden && explainsFound(entry, { ...row, modifiedTime: row.remoteModifiedTime })) ||
  // This row's plain reading of that writer's write, both made from one version: the fold keeps the writer's text (readingOfSource).
  (row.readPlainly && builtOn !== null && readingOfSource({ k: row.docKey, p: row.path, rb: row.remoteBlocksHash, h: row.localHash, b: builtOn }, entry));

/**
 * The other way round: the state's record is another machine's plain reading of the very blocks this row says
 * more of (saysMoreThan: it kept its own front matter, `hc`), however much later it was agreed. It stands for
 * nothing this row does not say better: this row's record is published (soak seed 502: a machine killed between
 * its write and its record, restarted after the other had read that write, never published its front matter).
 */
const readingOfOurs = (row: DocumentSummary, entry: StateEntry): boolean =>
  saysMoreThan({ exact: !row.inexact, carried: row.headCarried }, { carried: entry.hc === 1, inDoubt: inDoubt(entry) }) && ofSameBlocks(entry, row);

/** The files this ledger knows whose record the state lacks or holds older (what the next publish writes): for `kbsync state`. */
export function unpublishedPaths(ledger: Ledger, loaded: LoadedState): string[] {
  return planPublication(ledger, loaded, new Map(), () => true).records.flatMap((record) => (record.t === 'doc' ? [record.p] : []));
}
