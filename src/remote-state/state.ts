import { createHash } from 'node:crypto';
import type { Stamped } from './codec.js';
import type { DocRecord, GoneRecord, StateRecord, TeamRecord, WriteRecord } from './records.js';

/** What the knowledge base remembers of one synced file; `c` and `w`: the clock and writer of the record it comes from. */
export type StateEntry = Omit<DocRecord, 't'> & { readonly c: number; readonly w: string };

/** The source hash (sha256, as every kept source's) of the empty text: a document read as made, before its first body. */
const EMPTY_TEXT_HASH = createHash('sha256').update('').digest('hex');

/** A document's place and known blocks, as a ledger row says them. */
type Agreed = { readonly docKey: string; readonly path: string; readonly remoteBlocksHash: string };

/** A reading that kept its front matter, and whether it is also in doubt of what it took in (`l`, no hidden edit found). */
type Reading = Agreed & { readonly inDoubt: boolean };

/** A record in doubt of what it took in from a plain reading (`l`), no hidden edit found (`hd: 1` says one). */
export const inDoubt = (record: Pick<DocRecord, 'l' | 'hd'>): boolean => record.l === 1 && record.hd !== 1;

/** Whether a record is of the very document, place and (known) blocks a row or another record agreed on. */
export const ofSameBlocks = (record: Pick<DocRecord, 'k' | 'p' | 'rb'>, other: Agreed): boolean =>
  record.k === other.docKey && record.p === other.path && record.rb === other.remoteBlocksHash && record.rb !== '';

/** Whether `exact` (another writer's record without `l`) of the very blocks `found` found a hidden edit in was agreed at a minute no earlier than that one: its write. */
export const explainsFound = (exact: Pick<DocRecord, 'k' | 'p' | 'rb' | 'l' | 'm'>, found: { readonly docKey: string; readonly path: string; readonly remoteBlocksHash: string; readonly modifiedTime: string }): boolean =>
  exact.l === undefined && ofSameBlocks(exact, found) && exact.m !== '' && found.modifiedTime !== '' && found.modifiedTime <= exact.m;

/**
 * Whether `record` says more of the very document, place and blocks than `reading`, another record or row that
 * kept its front matter across a plain reading of them (`hc`), and so knows nothing of their writer's:
 * - an exact record (no `l`, no `hc`) does;
 * - one that kept its own front matter too says more only of the blocks: it does against a reading in doubt of
 *   them (`l`) (soak seed 500: a file restored from a reading of another machine's write, made before that write's
 *   record came, stood over it; the next run said HIDDEN_EDIT of that write);
 * - one in doubt of them as well, but knowing its front matter (no `hc`), says more of that against a reading in
 *   doubt (soak seed 601: a colleague's words taken in plainly on both machines, one of which had added front
 *   matter meanwhile: the other's record, published later, stood over it, and the front matter never reached it).
 * A reading that found a hidden edit in those blocks (`hd: 1`, not in doubt) says more than any of them.
 */
export const saysMoreOfSameBlocks = (record: Pick<DocRecord, 'k' | 'p' | 'rb' | 'l' | 'hc'>, reading: Reading): boolean =>
  saysMoreThan({ exact: record.l === undefined, carried: record.hc === 1 }, { carried: true, inDoubt: reading.inDoubt }) && ofSameBlocks(record, reading);

/**
 * The rule of saysMoreOfSameBlocks on what two versions of the very same blocks know: whether `version` says more
 * than `reading`, as the fold, the publish step (sync/state/publish.ts) and the reading of versions
 * (sync/decide/body.ts) all judge it. Only a reading that kept its front matter (`carried`) says less.
 */
export const saysMoreThan = (version: { readonly exact: boolean; readonly carried: boolean }, reading: { readonly carried: boolean; readonly inDoubt: boolean }): boolean =>
  reading.carried && (version.carried ? version.exact && reading.inDoubt : version.exact || reading.inDoubt);

/**
 * Whether `reading`, a record whose body its writer took in from the service's plain reading (`pr`), is of the very
 * blocks `source` records exactly (no `l`, no `pr`: a write's own text), both made from the same version (`b`): the
 * reading was of that write, its layout the reader's Markdown writer's, and the source's text says more of them.
 */
export const readingOfSource = (reading: Pick<DocRecord, 'k' | 'p' | 'rb' | 'h' | 'b'>, source: Pick<DocRecord, 'k' | 'p' | 'rb' | 'h' | 'b' | 'l' | 'pr'>): boolean =>
  source.l === undefined && source.pr === undefined && reading.b !== undefined && source.b === reading.b && source.h !== reading.h && ofSameBlocks(source, { docKey: reading.k, path: reading.p, remoteBlocksHash: reading.rb });

/**
 * Whether `standing` is another writer's record of a body in the document `empty` read, at a minute no later than that
 * record's, or unknown (a page listed before its first body takes its minute from its writer's record: README).
 */
const readBeforeBody = (standing: StateEntry, writer: string, empty: Pick<DocRecord, 'k' | 'h' | 'm'>): boolean =>
  standing.w !== writer && standing.k === empty.k && standing.h !== empty.h && (empty.m === '' || (standing.m !== '' && empty.m <= standing.m));

/** The state after folding every record in the order of their stamps: later records win, ids once learnt are kept. */
export type SharedState = {
  /** path → the file's entry. */
  readonly entries: ReadonlyMap<string, StateEntry>;
  /** docKey → creation nodeId: kept for as long as the document is known, whatever a later record says. */
  readonly nodeIds: ReadonlyMap<string, string>;
  /**
   * docKey → the documents that replaced it (a move or a re-creation, see DocRecord `rp`), sorted: two when two
   * machines moved one file at once. What a document replaced is what its first record to say so said.
   */
  readonly replacedBy: ReadonlyMap<string, readonly string[]>;
  /**
   * docKey → a version the document's latest record (`entries`) was made from the same one as (`b`), by another
   * writer that did not know it: the branch a stale overwrite replaced (a colleague's save one machine pulled
   * before another machine's write, decided on the version before it, landed). Kept until a record of another
   * version of the document comes, made by a writer that saw both (decide/body.ts merges them).
   */
  readonly forks: ReadonlyMap<string, StateEntry>;
  /**
   * The latest `gone` of each document at each path (goneKey) → its clock: a writer stopped pairing the two there
   * (deleted the document, moved the file to another, or forgot both gone). A machine that still pairs them has
   * older knowledge than that, unless it published or placed them since (publish.ts).
   */
  readonly gone: ReadonlyMap<string, number>;
  /**
   * docKey → the version its deleter's file held (GoneRecord `h`): all that writer knew of the document when it
   * deleted it. A version made from that one is an edit the delete could not see (sync/decide/removals.ts).
   */
  readonly deleted: ReadonlyMap<string, string>;
  /** docKey → the write announced last (WriteRecord), while no record of that document is later: a write a killed run may have made. */
  readonly writes: ReadonlyMap<string, Omit<WriteRecord, 't'>>;
  /** Local folder path → its remote folder (and creation nodeId when kbsync made it). */
  readonly folders: ReadonlyMap<string, { readonly tn: string; readonly n: string | null }>;
  /** State documents' docKey → creation nodeId. */
  readonly journals: ReadonlyMap<string, string>;
  /** Image content key → the URL it was uploaded to (by any machine). */
  readonly images: ReadonlyMap<string, string>;
  /** State documents a compaction retired → the clock of the (first) retirement. */
  readonly retired: ReadonlyMap<string, number>;
  /** Source hash → the sources documents holding it. */
  readonly sourceDocs: ReadonlyMap<string, readonly string[]>;
  /** The records the state consists of, each with its stamp: what a compaction writes (see liveRecords). */
  readonly live: readonly Stamped[];
  /** The settings every machine reads the folder with, as last published (undefined: none yet). */
  readonly team: TeamRecord | undefined;
  /** The highest clock among the records. */
  readonly clock: number;
};

export const EMPTY_STATE: SharedState = foldState([]);

/** The order of all records: by clock, then writer, then place in the batch. */
function byStamp(a: Stamped, b: Stamped): number {
  return a.c - b.c || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0) || a.i - b.i;
}

/**
 * Folds records in the order of their stamps, so the answer is the same however they were interleaved in
 * the documents: a path's latest record wins, a document is at one path only, a creation nodeId is never
 * lost to a record from a machine that did not know it, and a `gone` ends only its own document at its path.
 */
export function foldState(records: readonly Stamped[]): SharedState {
  const entries = new Map<string, StateEntry>();
  const pathOfDoc = new Map<string, string>();
  const nodeIds = new Map<string, Stamped>();
  const replaces = new Map<string, string>();
  const folders = new Map<string, Stamped>();
  const journals = new Map<string, Stamped>();
  const images = new Map<string, Stamped>();
  const retired = new Map<string, Stamped>();
  const sources = new Map<string, Stamped>();
  const writes = new Map<string, Stamped>();
  const forks = new Map<string, Stamped>();
  const readFrom = new Map<string, Stamped>();
  let team: Stamped | undefined;
  const history: History = { byPath: new Map(), byDoc: new Map(), gone: new Map() };
  let clock = 0;
  for (const stamped of [...records].sort(byStamp)) {
    const { record } = stamped;
    clock = Math.max(clock, stamped.c);
    switch (record.t) {
      case 'doc': {
        const { t: _t, ...entry } = record;
        if (entry.n !== null && !nodeIds.has(entry.k)) nodeIds.set(entry.k, stamped);
        if (entry.rp !== undefined && !replaces.has(entry.k)) replaces.set(entry.k, entry.rp);
        // A plain reading that kept its front matter says less of the blocks it read than their writer's exact
        // record, published before it (a machine that read the write before that record came, soak seed 502: it
        // stood over it, and the writer's front matter was lost on every machine). A record made from that very
        // version (`b`) is no reading of it: a later write of the same blocks, its change one reads cannot show (model
        // seed 7112: a table cell, the writer's front matter carried, dropped here, and kept on its machine alone).
        const standing = entries.get(entry.p);
        if (entry.hc === 1 && standing !== undefined && standing.w !== stamped.w && entry.b !== standing.h && saysMoreOfSameBlocks(standing, { docKey: entry.k, path: entry.p, remoteBlocksHash: entry.rb, inDoubt: inDoubt(entry) })) break;
        // Nor over a later version of that writer's, published before it: the reading was of an earlier write
        // (soak seed 726: it stood, and the reader took the later write in plainly too, its autolink lost for good).
        if (entry.hc === 1 && standing !== undefined && standing.w !== stamped.w && readingOvertaken(entry, standing)) break;
        // Nor a plain reading (`pr`) of another writer's write whose exact record, published before it, was made from the
        // version the reading was made from too, whatever either's front matter knows: that record's text is the source of
        // those very blocks, the reading only its reader's layout of them (convergence soak 741: both carried their front
        // matter (`hc`) from a colleague's edit, the reading stood, and the reader's file kept its own layout for good).
        if (entry.pr === 1 && standing !== undefined && standing.w !== stamped.w && readingOfSource(entry, standing)) break;
        // Nor a plain reading of the document at a minute before the one another writer's record, published before
        // it, gives other blocks: it read the document before that write, whatever its front matter (model seed 7434:
        // a machine pulled a new page plainly, its run's records held while the page's maker wrote it again; its
        // reading stood over the maker's exact record, it took the write in plainly too, and the files differed for good).
        if (entry.l === 1 && standing !== undefined && standing.w !== stamped.w && readBeforeWrite(entry, standing)) break;
        // A plain reading of the empty document, of a minute no later than another writer's record of a body there (a
        // new page listed between its create and its first body, before its writer's record came), says nothing of that
        // body, published before it (convergence soak 728: it stood over it, and the reader took the body in as the
        // plain reading, placeholders for its code and tables, never from the writer's kept source).
        if (entry.hc === 1 && entry.h === EMPTY_TEXT_HASH && standing !== undefined && readBeforeBody(standing, stamped.w, entry)) break;
        // A hidden edit found in the very blocks another writer recorded exactly, at a minute that record already
        // covers, was that writer's write landing later than announced (decide/body.ts explainsHidden): its record stands.
        if (entry.hd === 1 && standing !== undefined && standing.w !== stamped.w && explainsFound(standing, { docKey: entry.k, path: entry.p, remoteBlocksHash: entry.rb, modifiedTime: entry.m })) break;
        const previous = pathOfDoc.get(entry.k);
        // A path a writer made from the title, knowing no record of the document, names it no better than the path
        // another writer's record gives it (its creator's, listed a moment before that record came: soak seed 502,
        // the creator's own file was renamed to the title), whichever was published first.
        if (entry.nt === 1 && previous !== undefined && previous !== entry.p && entries.get(previous)?.nt === undefined && entries.get(previous)?.w !== stamped.w) break;
        const branch = previous === undefined ? undefined : history.byDoc.get(entry.k);
        const overtaken = branch === undefined ? undefined : forkOf(branch, stamped) ? branch : overtakenBeneath(branch, readFrom.get(entry.k), stamped);
        if (overtaken !== undefined) forks.set(entry.k, overtaken);
        else if (entries.get(previous ?? '')?.h !== entry.h) forks.delete(entry.k);
        if (branch !== undefined && readingMadeFrom(stamped, branch)) readFrom.set(entry.k, branch);
        else readFrom.delete(entry.k);
        if (previous !== undefined && previous !== entry.p) entries.delete(previous);
        const displaced = entries.get(entry.p);
        if (displaced && displaced.k !== entry.k) pathOfDoc.delete(displaced.k);
        entries.set(entry.p, { ...entry, c: stamped.c, w: stamped.w });
        pathOfDoc.set(entry.k, entry.p);
        history.byPath.set(entry.p, stamped);
        history.byDoc.set(entry.k, stamped);
        // A later record of the document (the write's own, once made) says more than the announcement of it.
        writes.delete(entry.k);
        break;
      }
      case 'write':
        writes.set(record.k, stamped);
        break;
      case 'gone':
        writes.delete(record.k);
        forks.delete(record.k);
        readFrom.delete(record.k);
        if (entries.get(record.p)?.k === record.k) {
          entries.delete(record.p);
          pathOfDoc.delete(record.k);
        }
        history.gone.set(goneKey(record.k, record.p), withDeletedVersion(stamped, history.gone.get(goneKey(record.k, record.p))));
        break;
      case 'dir': {
        // A record that does not know the folder's creation id keeps the one learnt before.
        const known = (folders.get(record.p)?.record as typeof record | undefined)?.n ?? null;
        folders.set(record.p, record.n === null && known !== null ? { ...stamped, record: { ...record, n: known } } : stamped);
        break;
      }
      case 'journal':
        journals.set(record.k, stamped);
        break;
      case 'img':
        // The same content may have been uploaded twice (two machines at once): either URL shows it; the first stays.
        if (!images.has(record.k)) images.set(record.k, stamped);
        break;
      case 'retire':
        for (const docKey of record.docs) if (!retired.has(docKey)) retired.set(docKey, stamped);
        break;
      case 'src':
        sources.set(`${record.d}\0${record.h.join(',')}`, stamped);
        break;
      case 'reset':
        // Written by kbsync before compactions retired documents: it never disables anything now.
        break;
      case 'team':
        team = stamped;
        break;
    }
  }
  const nodeIdOf = (k: string): string | null => (nodeIds.get(k)?.record as DocRecord | undefined)?.n ?? null;
  // A nodeId learnt from another record of the document (another machine's) fills the entry in; so does what it replaced.
  for (const [path, entry] of entries) {
    const n = entry.n ?? nodeIdOf(entry.k);
    const rp = replaces.get(entry.k) ?? entry.rp;
    if (n !== entry.n || rp !== entry.rp) entries.set(path, { ...entry, n, ...(rp !== undefined ? { rp } : {}) });
  }
  const replacedBy = new Map<string, string[]>();
  for (const [k, old] of replaces) replacedBy.set(old, [...(replacedBy.get(old) ?? []), k].sort());
  return {
    entries,
    nodeIds: new Map([...nodeIds.keys()].map((k) => [k, nodeIdOf(k) as string])),
    replacedBy,
    gone: new Map([...history.gone].map(([key, stamped]) => [key, stamped.c])),
    deleted: deletedVersions(history.gone.values()),
    forks: new Map([...forks].map(([k, stamped]) => [k, entryOf(stamped)])),
    writes: new Map([...writes].map(([k, stamped]) => [k, writeOf(stamped.record as WriteRecord)])),
    folders: new Map([...folders].map(([p, s]) => [p, { tn: (s.record as { tn: string }).tn, n: (s.record as { n: string | null }).n }])),
    journals: new Map([...journals].map(([k, s]) => [k, (s.record as { n: string }).n])),
    images: new Map([...images].map(([k, s]) => [k, (s.record as { u: string }).u])),
    retired: new Map([...retired].map(([k, s]) => [k, s.c])),
    sourceDocs: sourceDocsOf(sources.values()),
    live: [
      ...journals.values(),
      ...retirementsOf(retired),
      ...folders.values(),
      ...docRecords(history, nodeIdOf, replaces, [...forks.values(), ...readFrom.values()]),
      ...history.gone.values(),
      ...writes.values(),
      ...images.values(),
      ...sources.values(),
      ...(team ? [team] : []),
    ],
    team: team?.record as TeamRecord | undefined,
    clock,
  };
}

/**
 * A `gone` as the fold keeps it: one that does not say which version was deleted (another machine trashed its file of
 * the document since, or forgot it) keeps what the earlier `gone` of the delete said, in the state and in a compaction.
 */
function withDeletedVersion(gone: Stamped, earlier: Stamped | undefined): Stamped {
  const record = gone.record as GoneRecord;
  const deleted = record.h ?? (earlier?.record as GoneRecord | undefined)?.h;
  return deleted === undefined || deleted === record.h ? gone : { ...gone, record: { ...record, h: deleted } };
}

/** SharedState `deleted`, from the `gone` records kept. */
function deletedVersions(kept: Iterable<Stamped>): Map<string, string> {
  const out = new Map<string, string>();
  for (const { record } of kept) if (record.t === 'gone' && record.h !== undefined) out.set(record.k, record.h);
  return out;
}

/** The key of SharedState `gone`: one document at one path. */
export const goneKey = (docKey: string, path: string): string => `${docKey}\0${path}`;

const writeOf = ({ t: _t, ...write }: WriteRecord): Omit<WriteRecord, 't'> => write;

const entryOf = (stamped: Stamped): StateEntry => {
  const { t: _t, ...entry } = stamped.record as DocRecord;
  return { ...entry, c: stamped.c, w: stamped.w };
};

/**
 * Whether `later`, a record of the document `earlier` is the standing record of, is another branch of the version
 * both were made from (DocRecord `b`): another writer's other version of other blocks, made without knowing it.
 * Two records of the very blocks are one reading, not a version lost to a write.
 */
function forkOf(earlier: Stamped, later: Stamped): boolean {
  const a = earlier.record as DocRecord;
  const b = later.record as DocRecord;
  // Not where the earlier record's version is the very one it names as made from (a version its writer took in
  // exactly): the later, made from it, is a later version of it, as a run judges its own record (published-version.ts
  // tookExactly, convergence soak 759).
  return earlier.w !== later.w && a.b !== undefined && a.b !== a.h && a.b === b.b && a.h !== b.h && a.rb !== b.rb;
}

/**
 * Whether `reading` is a plain reading (`l`) of a change no record explained yet, made from `from`, the document's
 * record before it (`b`): the version its writer had, which the change it read may have been written over unseen.
 */
function readingMadeFrom(reading: Stamped, from: Stamped): boolean {
  const record = reading.record as DocRecord;
  return record.l === 1 && record.b !== undefined && record.b === (from.record as DocRecord).h;
}

/**
 * The version `reading` (the document's standing record) was made from (`from`), when it is the branch `later`
 * overtook: `reading` is another writer's plain reading of the very blocks `later` records, read before that record
 * came, and `from` is another branch of the version `later` was made from (forkOf). The reading stands between the
 * two branches, and says neither: it carried what its writer could not see gone (a link's address `later`'s write
 * replaced), and `later` was made without it (model seed 7337: taken for the version after the reading, `later` was
 * taken in whole by the reader, and the address it had written was lost everywhere).
 */
function overtakenBeneath(reading: Stamped, from: Stamped | undefined, later: Stamped): Stamped | undefined {
  const read = reading.record as DocRecord;
  const written = later.record as DocRecord;
  if (from === undefined || reading.w === later.w || read.rb !== written.rb || read.rb === '') return undefined;
  return forkOf(from, later) ? from : undefined;
}

/**
 * Whether `reading`, a record that kept its front matter across a plain reading (`hc`), is of blocks the standing
 * record of another writer's had already moved on from: they differ, the reading was not made from that record's
 * version (`b`, nor from the one that version was made from: two branches are a fork), and that record says more
 * of its own blocks than the reading would of them (saysMoreThan). The reader's run took the state before the
 * writer's record came, read one write and published after the record of the next; a later edit read plainly is
 * made from the version it read (its `b`), and stands. A reading that knows nothing it was made from stands too.
 */
function readingOvertaken(reading: Omit<DocRecord, 't'>, standing: StateEntry): boolean {
  if (reading.b === undefined || standing.b === undefined || reading.k !== standing.k || reading.rb === standing.rb || standing.rb === '') return false;
  if (reading.b === standing.h || reading.b === standing.b) return false;
  return saysMoreThan({ exact: standing.l === undefined, carried: standing.hc === 1 }, { carried: true, inDoubt: inDoubt(reading) });
}

/**
 * Whether `reading` listed the document at a minute before the one `standing`, another record of it, gives blocks
 * other than the reading's: times never go back, so the reading came before the write (or reading) `standing` is of.
 */
const readBeforeWrite = (reading: Pick<DocRecord, 'k' | 'rb' | 'm'>, standing: StateEntry): boolean =>
  reading.k === standing.k && reading.rb !== standing.rb && reading.m !== '' && standing.m !== '' && reading.m < standing.m;

/** The latest doc record of each path and of each document, and the latest `gone` of each document at each path. */
type History = { readonly byPath: Map<string, Stamped>; readonly byDoc: Map<string, Stamped>; readonly gone: Map<string, Stamped> };

/**
 * The doc records a compaction keeps, each with its original stamp and the creation id (and the document it
 * replaced) learnt from any record: the latest of each path and of each document. Those are exactly the
 * records a record appended later (with any stamp) can meet in the fold: every other one was overtaken both
 * at its path and for its document. So the compacted state folds, with whatever comes later, to what the whole history would.
 */
function docRecords(history: History, nodeIdOf: (k: string) => string | null, replaces: ReadonlyMap<string, string>, branches: readonly Stamped[]): Stamped[] {
  // A fork's branch too: folded again before the record it was overtaken by, it is that record's branch again. And
  // the version a standing plain reading was made from: folded again before the record of the write it read, it is
  // the branch that write overtook (overtakenBeneath).
  const kept = new Set([...history.byPath.values(), ...history.byDoc.values(), ...branches]);
  return [...kept].map((stamped) => {
    const record = stamped.record as DocRecord;
    const n = record.n ?? nodeIdOf(record.k);
    const rp = replaces.get(record.k) ?? record.rp;
    return n === record.n && rp === record.rp ? stamped : { ...stamped, record: { ...record, n, ...(rp !== undefined ? { rp } : {}) } };
  });
}

function retirementsOf(retired: ReadonlyMap<string, Stamped>): Stamped[] {
  const byRecord = new Map<Stamped, string[]>();
  for (const [docKey, stamped] of retired) byRecord.set(stamped, [...(byRecord.get(stamped) ?? []), docKey]);
  return [...byRecord].map(([stamped, docs]) => ({ ...stamped, record: { t: 'retire', docs } }));
}

function sourceDocsOf(records: Iterable<Stamped>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { record } of records) {
    if (record.t !== 'src') continue;
    for (const hash of record.h) out.set(hash, [...(out.get(hash) ?? []), record.d]);
  }
  return out;
}

/** The records of a state, for writing it anew: what `kbsync state rewrite` keeps of the old one. */
export const recordsOf = (state: SharedState): StateRecord[] => state.live.map((stamped) => stamped.record);
