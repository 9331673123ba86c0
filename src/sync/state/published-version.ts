import { blocksHash, predictedBlocks } from '../../markdown/index.js';
import type { LoadedState, RemoteStateStore } from '../../remote-state/store.js';
import { goneKey, type SharedState, type StateEntry } from '../../remote-state/state.js';
import type { WriteRecord } from '../../remote-state/records.js';
import { latestMinuteAfter } from './minutes.js';
import type { BodyFacts, PublishedVersion } from '../decide/body.js';
import { splitText } from '../content/document-text.js';

/** The record asked about; `baseMarkdown`, its text (a version of that very text needs no read of the sources). */
type Asked = { readonly docKey: string; readonly localHash: string; readonly baseMarkdown?: string; readonly lossyBase: boolean; readonly formattingOnly?: boolean };

/** A record asked about for another branch of the version it was made from (SharedVersions.fork). */
type Branched = { readonly docKey: string; readonly localHash: string; readonly remoteBlocksHash: string; readonly builtOn: string | null; readonly inexact: boolean; readonly readPlainly?: boolean };

/**
 * What the shared state says of a document's delete: `version`, the version its deleter deleted (GoneRecord `h`), when
 * a `gone` said it; `said`, whether any `gone` of the document at the path asked came. None yet: its deleter publishes
 * its `gone` as its run ends, after its other actions, so it may be on its way (sync/decide/removals.ts decideTrash).
 */
export type Deletion = { readonly said: boolean; readonly version?: string };

/** What the shared state says of a document's versions (see sharedVersions). */
export type SharedVersions = {
  /** What another kbsync writer last published of it (or an announced write that landed after that). */
  readonly published: (record: Asked, load: boolean, remoteHash?: string) => Promise<PublishedVersion | undefined>;
  /** A write announced after `since` (an entry's agreement) that landed: the document's blocks now hash to `remoteHash`, its text's. */
  readonly announced: (docKey: string, remoteHash: string, since: { readonly blocksHash?: string; readonly agreedAt?: number }) => Promise<PublishedVersion | undefined>;
  /**
   * Another branch of the version a record was made from (BodyFacts.fork), asked of a state this run read already.
   * `overtaken`: only where the state names a branch a write overtook (SharedState.forks), asked of a document that
   * did not change since the record: it may hold that write since before the record (its writer's, or a reading of it).
   */
  readonly fork: (record: Branched, overtaken?: 'overtaken') => Promise<BodyFacts['fork'] | undefined>;
  /** What the state this run read (read now if it did not) says of the document's delete at `path` (undefined: no state to tell). */
  readonly deletion: (docKey: string, path: string) => Promise<Deletion | undefined>;
  /** Whether the document is one another writer made in place of another, no record giving it a time yet: its first body is on its way (BodyFacts.bodyComing). */
  readonly bodyComing: (docKey: string) => Promise<boolean>;
  /**
   * The service's time as the state these answers come from was read (undefined: not read, or not known): what was
   * recorded after it is not in them (BodyFacts.recordMayCome).
   */
  readonly stateReadAt: () => Date | undefined;
  /**
   * Whether another writer appended to the shared state since this run read it (one listing of its folder): a record
   * this run's answers lack may have come since (BodyFacts.recordMayCome). Once it has, it has for the rest of the run.
   */
  readonly appendedSinceRead: () => Promise<boolean>;
};

/**
 * What another kbsync writer last published of a document (the shared state's entry for it and its kept
 * source), asked only for a document that changed remotely: a merge then works from that Markdown, not from
 * the service's plain reading. The state is read at most once per run, and only when first asked; a state
 * that cannot be read leaves the merge to the plain reading, as before there was a state.
 *
 * A write announced after the entry (a CI job killed between its write and its record, see WriteRecord) is
 * that writer's version instead, when the document reads exactly as its text (`remoteHash`, the blocks read
 * now) and not as the entry's: the write landed, and nobody changed what reads can show since.
 */
export function sharedVersions(store: RemoteStateStore | undefined, shared: Pick<LoadedState, 'state' | 'readAt'> | undefined): SharedVersions {
  let readAt = shared?.readAt;
  const taken = (loaded: LoadedState): SharedState => {
    readAt = loaded.readAt;
    return loaded.state;
  };
  let state: Promise<SharedState | undefined> | undefined = shared ? Promise.resolve(shared.state) : undefined;
  const folded = (load: boolean): Promise<SharedState | undefined> | undefined => {
    if (!state && !load) return undefined;
    state ??= store ? store.load().then(taken, () => undefined) : Promise.resolve(undefined);
    return state;
  };
  const sourceOf = async (hash: string): Promise<string | undefined> => (store ? (await store.sources(new Set([hash])).catch(() => new Map<string, string>())).get(hash) : undefined);
  const announced: SharedVersions['announced'] = async (docKey, remoteHash, since) => {
    const write = store ? (await folded(true))?.writes.get(docKey) : undefined;
    if (!write || remoteHash === since.blocksHash || write.a <= (since.agreedAt ?? 0)) return undefined;
    return landedWrite(write, remoteHash, sourceOf);
  };
  const published: SharedVersions['published'] = async (record, load, remoteHash) => {
    const loaded = await folded(load);
    if (!store || !loaded) return undefined;
    const entry = latestEntry(loaded, record.docKey);
    const landed = remoteHash !== undefined ? await announced(record.docKey, remoteHash, { ...(entry ? { blocksHash: entry.rb, agreedAt: entry.a ?? 0 } : {}) }) : undefined;
    if (landed) return landed;
    // A lossy record of this very text tells nothing new to a machine whose record is lossy too (its own, say),
    // unless it doubts more (content, where this one doubts only formatting); any other is worth its source: a
    // newer version, this very text as its writer published it exactly, or as another writer found the document
    // holds more than it (model seed 50013).
    const noNews = entry !== undefined && entry.h === record.localHash && entry.l === 1 && record.lossyBase && (entry.f === 1 || record.formattingOnly !== true);
    if (!entry || noNews) return undefined;
    // Most often the entry is this machine's own record of the text it has (its last run's): no read for that.
    const text = entry.h === record.localHash && record.baseMarkdown !== undefined ? record.baseMarkdown : await sourceOf(entry.h);
    if (text === undefined) return undefined;
    return versionOf(entry, text);
  };
  const fork: SharedVersions['fork'] = async (record, overtaken) => {
    if (!store || record.builtOn === null) return undefined;
    const loaded = await folded(false);
    if (!loaded || (overtaken !== undefined && !loaded.forks.has(record.docKey))) return undefined;
    const found = branchOf(record, record.builtOn, loaded);
    if (!found) return undefined;
    // One read of the sources, in this rare case alone: the version both were made from, and the other branch.
    // A read that fails fails the file for this run: without the branch, the ordinary merge would take its words'
    // absence from the document for their removal (seed 6011), where the next run can read them.
    const { branch, base } = found;
    const texts = await store.sources(new Set([base, branch.h]));
    const text = texts.get(branch.h);
    return text === undefined ? undefined : { base: texts.get(base), branch: versionOf(branch, text) };
  };
  // Its maker records a new document's ids before its first body (journal.ts identify: no source, no blocks, no
  // time), the document it replaces with them (`rp`). Until a record gives the new document a time, nobody has
  // recorded a read of it: the latest may be that maker's ids, or a follower's record of the page it followed there
  // (its old blocks, no time yet), which stands over the ids at the same path. This machine's own ids alone say it
  // is the maker, whose own rerun sends the body.
  const bodyComing: SharedVersions['bodyComing'] = async (docKey) => {
    const loaded = store ? await folded(true) : undefined;
    const latest = loaded ? latestEntry(loaded, docKey) : undefined;
    const ownIds = latest?.w === store?.clock.writer && latest?.rb === '';
    return latest !== undefined && latest.rp !== undefined && latest.m === '' && !ownIds;
  };
  const deletion: SharedVersions['deletion'] = async (docKey, path) => {
    const loaded = store ? await folded(true) : undefined;
    if (!loaded) return undefined;
    const version = loaded.deleted.get(docKey);
    return { said: loaded.gone.has(goneKey(docKey, path)), ...(version !== undefined ? { version } : {}) };
  };
  const stateReadAt = (): Date | undefined => (readAt === undefined ? undefined : new Date(readAt));
  let appended = false;
  const appendedSinceRead = async (): Promise<boolean> => {
    appended ||= store !== undefined && (await store.appendedSinceRead());
    return appended;
  };
  return { published, announced, fork, deletion, bodyComing, stateReadAt, appendedSinceRead };
}

/**
 * Whether a record's version is the very one it names as made from (DocumentBody.builtOn): a version it took in
 * exactly (another writer's, pulled), not one made from it. Another writer's version made from that one is then a
 * later version of this record's, never a sibling of it (convergence soak 759: a machine that had pulled a page
 * took another's later change of its line endings, made from that very version, for a branch beside its own, and
 * for the other's layout of it: the endings never came, and a colleague's words on one of those lines later
 * merged against the wrong base, and the machines' files differed for good).
 */
export const tookExactly = (record: { readonly localHash: string; readonly builtOn: string | null }): boolean => record.builtOn === record.localHash;

/** The document's latest entry in the folded state (entries are in the order of their records' stamps). */
function latestEntry(state: SharedState, docKey: string): StateEntry | undefined {
  let latest: StateEntry | undefined;
  for (const candidate of state.entries.values()) if (candidate.k === docKey) latest = candidate;
  return latest;
}

/** A writer's version as its record in the shared state says it, with its kept source. */
function versionOf(entry: StateEntry, text: string): PublishedVersion {
  // A record from a kbsync before `hd` cannot tell a hidden edit from a visible one taken in: taken as one, as it was.
  const doubt = entry.l !== 1 ? {} : entry.f === 1 ? { formattingOnly: true } : { hidden: entry.hd !== 0 };
  return { text, remoteBlocksHash: entry.rb, modifiedTime: entry.m, exact: entry.l !== 1, ...doubt, agreedAt: entry.a ?? 0, path: entry.p, ...(entry.hc === 1 ? { headCarried: true } : {}), ...(entry.b !== undefined ? { builtOn: entry.b } : {}), ...(entry.pr === 1 ? { readPlainly: true } : {}) };
}

/**
 * Another writer's version of the document made from the very version `record` was (`builtOn`), of other text and
 * other blocks: the document's latest record, or, where that is this record's version, the branch it overtook
 * (SharedState.forks: this machine's own write landed over a version another machine had agreed on meanwhile); and
 * the version both were made from (`base`). Or, where this record was made from the branch the latest overtook (a
 * plain reading of that write, made before its record came), the latest, made from the version that branch was.
 */
function branchOf(record: Branched, builtOn: string, state: SharedState): { readonly branch: StateEntry; readonly base: string } | undefined {
  const latest = latestEntry(state, record.docKey);
  // Not where this record is that very version (taken in exactly): a version made from it is a later one of it.
  const other = (entry: StateEntry | undefined, sameBlocks = false): boolean =>
    entry !== undefined && !tookExactly(record) && entry.b === builtOn && entry.h !== record.localHash && (sameBlocks || entry.rb !== record.remoteBlocksHash);
  // The latest may be of the very blocks this record agreed on: two writes of that version that differ only where
  // reads cannot see (a link's address, code), landed in one moment. Reads cannot tell which the document holds, so
  // neither is taken over the other (model seed 11006: the later writer took the earlier one's record, agreed in the
  // same second, for the document's, and dropped its own link address from its file). Not when this record is a
  // plain reading of the other's write, read before its record came: that write is the version it read, not another.
  // Nor when the latest is a plain reading (`l`) of this record's own write, read before this record reached the
  // state: a reading writes nothing, so no write of this record's could have replaced it (convergence soak 735: the
  // reading, taken for a branch, opened a conflict over the very words this machine wrote, whose formatting it lacked).
  // Nor when this record is itself a plain reading (readPlainly) of the latest's write: that is the source it read.
  if (latest !== undefined && other(latest, !record.inexact && record.readPlainly !== true && latest.l !== 1)) return { branch: latest, base: builtOn };
  const sibling = state.forks.get(record.docKey);
  if (sibling !== undefined && latest?.h === record.localHash && other(sibling)) return { branch: sibling, base: builtOn };
  // This record was made from the branch the latest overtook: its writer read that write plainly before its record
  // came, and carried what it could not see was gone (model seed 7337: a link's address). The latest says none of it,
  // made from the version that branch was: against that one, both branches' changes are each their own.
  const overtook = sibling !== undefined && sibling.h === builtOn && sibling.b !== undefined && latest !== undefined && latest.b === sibling.b && latest.h !== record.localHash;
  return overtook ? { branch: latest, base: sibling.b } : undefined;
}

/**
 * An announced write's version, when the document reads as its text: exact, agreed when announced. The write
 * came after the announcement, so the minute after it (with the second a Date header may lag) is the latest
 * its time can bear; a later one is someone else's edit, where reads may not see.
 */
async function landedWrite(write: Omit<WriteRecord, 't'>, remoteHash: string, sourceOf: (hash: string) => Promise<string | undefined>): Promise<PublishedVersion | undefined> {
  const text = await sourceOf(write.h);
  if (text === undefined || blocksHash(predictedBlocks(splitText(text).body)) !== remoteHash) return undefined;
  return { text, remoteBlocksHash: remoteHash, modifiedTime: latestMinuteAfter(write.a), exact: true, agreedAt: write.a, path: write.p };
}
