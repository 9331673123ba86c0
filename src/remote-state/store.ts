import { isConflict, isNotFound, isOutcomeUnknown, type KbClient, type RemoteNode } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { Logger } from '../log.js';
import { oneLine } from '../printable.js';
import type { BlockId, DocKey, TreeNodeId, WorkspaceId } from '../model/ids.js';
import { WriterClock } from './clock.js';
import { decodeTokens, encodeRecords, encodeSource, joinSource, type IndexToken, type SourceChunk, type Stamped } from './codec.js';
import { bySeq, dataOf, DOC_CHARS, NOTES, newTitle, parseTitle, STATE_FOLDER, stateDocOf, type Family, type StateDoc } from './documents.js';
import { emptyJunk, type StateJunk } from './junk.js';
import type { StateRecord } from './records.js';
import { foldState, type SharedState } from './state.js';
import { isSignedToken, type StateKey } from './token.js';

export { STATE_FOLDER, type StateDoc } from './documents.js';

/**
 * How long a retired state document stays (and is read) before a compaction deletes it: see compaction.ts.
 * `KBSYNC_STATE_GRACE_MS` (for tests, like KBSYNC_CRASH_AT) sets it, so a randomized run decides by its seed
 * which runs see a compaction's grace period over: 0 for a run "long after" (writers then confirm their
 * target before every append), up to a day for the others.
 */
export const GRACE_MS = graceMs(process.env['KBSYNC_STATE_GRACE_MS']);

function graceMs(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isInteger(n) && n >= 0 && n <= 24 * 60 * 60 * 1000 ? n : 600_000;
}
/** Most index documents one run reads (a compacted state of 20,000 files needs about 60), and sources documents. */
const MAX_DOCS_READ = 96;
/** Most characters read from one state document: kbsync writes at most 50,000 (the service takes no more in one overwrite). */
const MAX_DOC_CHARS = 100_000;
/** Documents in a row holding nothing kbsync wrote after which a run reads no more of the state folder. */
const MAX_JUNK_DOCS = 8;
/** Most records one run folds. */
const MAX_RECORDS = 400_000;

/** What a load asks before it reads the state, and once it has folded it: each throws to refuse. */
type StateChecks = { listed(docs: readonly StateDoc[]): void; loaded(loaded: LoadedState): void };

/** Where the last run appended, per family, and when it last confirmed that document the newest: kept in the ledger. */
export type TargetCache = {
  read(): readonly CachedTarget[] | undefined;
  write(docs: readonly CachedTarget[]): void;
  /** The state folder the last run found. */
  readonly folder?: { read(): string | undefined; write(id: string): void };
};
export type CachedTarget = StateDoc & { readonly confirmedAt: number };

export type LoadedState = {
  readonly state: SharedState;
  /** The state documents that count (index documents read, sources documents listed). */
  readonly docs: readonly StateDoc[];
  /** Characters of every index document read, for the compaction rule and `kbsync state`. */
  readonly chars: number;
  /** What was found that is not kbsync's, or could not be trusted: not used, counted. */
  readonly junk: StateJunk;
  /** Read with the team's key: every record used was verified. */
  readonly authenticated: boolean;
  /** Each index document's records as read (docKey → records): what a compaction finds in the documents it keeps. */
  readonly records: ReadonlyMap<string, readonly Stamped[]>;
  /**
   * Tokens read that are signed for the workspace alone (kbsync before records were bound to their synced
   * folder): the state is written anew bound (compaction.ts), after which such tokens are not read.
   */
  readonly workspaceBound: number;
};

/** A source to keep: the file's text under its sha256. */
export type Source = { readonly hash: string; readonly text: string };

/**
 * kbsync's record in the knowledge base: which file is which document, the creation ids the service gives
 * only once, and the Markdown last synced. Every run that needs it reads the index documents; writes are
 * appends of signed, stamped tokens into the newest document, and new documents when it is full. Records
 * are ordered by their stamps (clock.ts), not by where they sit, and a record read from here is checked
 * (records.ts) and, with the team's key, verified (token.ts) before anything uses it; anything else is
 * junk, counted and left alone. The sources documents are read only when a file's text is needed.
 */
export class RemoteStateStore {
  readonly #client: KbClient;
  readonly #workspaceId: WorkspaceId;
  readonly #rootId: TreeNodeId;
  readonly #logger: Logger;
  readonly #key: StateKey | undefined;
  readonly clock: WriterClock;
  readonly #cache: TargetCache | undefined;
  readonly #now: () => number;
  readonly #docChars: number;
  readonly #checks: StateChecks | undefined;
  /** Tokens signed for the workspace alone are no longer read (the state was written anew bound to its folder). */
  #bound: boolean;
  #folderId: TreeNodeId | undefined;
  /** The root was listed, so an undefined folder means there is none (no need to look again). */
  #searched = false;
  #docs: StateDoc[] | undefined;
  /** State documents this run wrote: true while only this run did (an append's answer shows any other writer's). */
  #written = new Map<string, boolean>();
  #listedAt = 0;
  #foreign: string[] = [];
  #loaded: LoadedState | undefined;
  #loading: Promise<LoadedState> | undefined;
  #sources = new Map<string, SourceChunk[]>();
  /** Sources documents read (or being read) this run: concurrent asks share one read. */
  #sourcesRead = new Map<string, Promise<void>>();
  /** Documents this writer made this run: appends may go to them before any state lists them. */
  readonly #made = new Map<string, string | null>();

  constructor(deps: {
    readonly client: KbClient;
    readonly workspaceId: WorkspaceId;
    readonly rootId: TreeNodeId;
    readonly logger: Logger;
    readonly cache?: TargetCache;
    /** The team's state key: tokens are signed with it, and only tokens it verifies are used. */
    readonly key?: StateKey;
    readonly clock?: WriterClock;
    readonly now?: () => number;
    /** Characters of tokens a state document takes before a new one starts (tests make it small). */
    readonly docChars?: number;
    /**
     * Whether this machine's key is the team's, asked of every load before anything is read (the listed
     * documents) and once it is folded: it throws to refuse (sync/state/key-check.ts, team.ts).
     */
    readonly checks?: StateChecks;
    /** This folder's state is bound to it (this machine saw it so): tokens signed for the workspace alone are never read. */
    readonly bound?: boolean;
  }) {
    this.#client = deps.client;
    this.#workspaceId = deps.workspaceId;
    this.#rootId = deps.rootId;
    this.#logger = deps.logger;
    this.#cache = deps.cache;
    this.#key = deps.key;
    this.#now = deps.now ?? Date.now;
    this.#docChars = deps.docChars ?? DOC_CHARS;
    this.#checks = deps.checks;
    this.#bound = deps.bound ?? false;
    this.clock = deps.clock ?? new WriterClock({ now: this.#now });
  }

  /** Whether this machine holds the team's key (records are then verified). */
  get authenticated(): boolean {
    return this.#key !== undefined;
  }

  /** The state documents that count (listed, not read): where the state lives and how much of it there is. */
  async documents(): Promise<readonly StateDoc[]> {
    return (await this.#listDocs()).filter((doc) => this.#trusted(doc));
  }

  /**
   * What the index documents looked like when listed (titles and times): unchanged since the state was last
   * read, the state is too, so a run that only wants to know about other machines' versions need not read it.
   */
  async indexFingerprint(): Promise<string> {
    return fingerprintOf(this.#keyChecked(await this.#listDocs()), new Map());
  }

  /**
   * The listed documents, once this machine's key is found to be the team's from their titles (refused
   * otherwise: sync/state/key-check.ts). A machine without a key is checked when it reads the state
   * (#keyedLookalikes: a title alone does not tell a team's signed state from a look-alike).
   */
  #keyChecked(listed: readonly StateDoc[]): readonly StateDoc[] {
    this.#checks?.listed(listed);
    return listed;
  }

  /**
   * The index fingerprint as the next listing will show it after this run's own writes, their times taken as
   * `minute` (the service's minute as the run ends): a run need not read back what it wrote itself. Undefined
   * when it cannot tell (the listing was dropped, or an append's answer showed another writer's tokens too):
   * the next run then reads the state.
   */
  fingerprintAfterWrites(minute: string): string | undefined {
    if (this.#docs === undefined || [...this.#written.values()].some((alone) => !alone)) return undefined;
    return fingerprintOf(this.#docs, new Map([...this.#written.keys()].map((docKey) => [docKey, minute])));
  }

  /** Whether this run wrote to the state at all. */
  get wrote(): boolean {
    return this.#written.size > 0;
  }

  #wrote(docKey: string, alone: boolean): void {
    this.#written.set(docKey, alone && this.#written.get(docKey) !== false);
  }

  /** What else the state folder holds (someone's own folder that happens to share its name): never synced, and said. */
  foreign(): readonly string[] {
    return this.#foreign;
  }

  /** The state folder as the run's listing saw it (undefined: there is none yet). */
  seen(folderId: TreeNodeId | undefined): void {
    this.#folderId = folderId;
    this.#searched = true;
  }

  /** The state as this run last read it (undefined: not read). */
  get loaded(): LoadedState | undefined {
    return this.#loaded;
  }

  /**
   * Reads the index documents and folds their records. Nothing someone else put there stops the run: a
   * token that is not whole, not verified (with a key) or not a valid record is left out and counted.
   */
  async load(): Promise<LoadedState> {
    // A listing made a moment ago (the run's look at the index's times) is the one to read by.
    const listed = await this.#listDocs(this.#docs === undefined || this.#now() - this.#listedAt > 2_000);
    this.#keyChecked(listed);
    const junk = emptyJunk();
    if (!this.#key) await this.#keyedLookalikes(listed, junk);
    const index = listed.filter((doc) => doc.family === 'state');
    // Without a key, the only documents not counted are the look-alikes just said.
    const readable = index.filter((doc) => this.#trusted(doc) || (this.#key && junk.unverifiedDocs.push(doc.title), false));
    const read: { readonly doc: StateDoc; readonly decoded: ReturnType<typeof decodeTokens> }[] = [];
    const docs: StateDoc[] = [];
    let chars = 0;
    let junkInARow = 0;
    // The newest first: a state larger than a run reads is one whose oldest documents are left; and after a
    // few documents in a row that hold nothing kbsync wrote (a colleague's junk), the rest are left. Both said.
    for (const doc of [...readable].sort(newestFirst)) {
      if (docs.length >= MAX_DOCS_READ || junkInARow >= MAX_JUNK_DOCS) {
        junk.unreadDocs += 1;
        continue;
      }
      const { text, dataBlockId } = await this.#read(doc, junk);
      const decoded = decodeTokens(text, this.#key, doc.seq);
      junkInARow = decoded.index.length + decoded.chunks.length === 0 ? junkInARow + 1 : 0;
      read.push({ doc, decoded });
      chars += text.length;
      docs.push({ ...doc, dataBlockId, chars: text.length });
    }
    // Tokens signed for the workspace alone are read until the state says all of it is bound to this folder.
    this.#bound ||= read.some(({ decoded }) => decoded.index.some((token) => !token.workspace && token.records.some(({ record }) => record.t === 'team' && record.b === 1)));
    const seen = new Set<string>();
    const stamped: Stamped[] = [];
    const records = new Map<string, Stamped[]>();
    const found: { readonly doc: StateDoc; readonly unverified: number; readonly damaged: number; readonly dropped: number }[] = [];
    let workspaceBound = 0;
    for (const { doc, decoded } of read) {
      const usable = decoded.index.filter((token) => !(token.workspace && this.#bound));
      let dropped = decoded.dropped;
      records.set(doc.docKey, usable.flatMap((token) => token.records));
      for (const token of usable) {
        if (seen.has(token.token)) continue;
        seen.add(token.token);
        if (token.workspace) workspaceBound += 1;
        if (stamped.length + token.records.length > MAX_RECORDS) dropped += token.records.length;
        else stamped.push(...token.records);
      }
      found.push({ doc, unverified: decoded.unverified + decoded.index.length - usable.length, damaged: decoded.damaged, dropped });
    }
    docs.sort(bySeq);
    const state = foldState(stamped);
    this.clock.observe(state.clock);
    // What a retired document holds is on its way out (its good tokens are copied on): not said again.
    for (const { doc, unverified, damaged, dropped } of found) {
      if (state.retired.has(doc.docKey) || unverified + damaged + dropped === 0) continue;
      junk.unverifiedTokens += unverified;
      junk.damagedTokens += damaged;
      junk.droppedRecords += dropped;
      junk.docs.push(doc.title);
    }
    const sources = listed.filter((doc) => doc.family === 'sources' && this.#trusted(doc));
    // Documents signed with a key the team replaced, which its rotation retired (key-rotation.ts): deleted in
    // their turn, by a verified record's creation id, and not said as junk meanwhile. Never read.
    const replaced = listed.filter((doc) => !this.#trusted(doc) && state.retired.has(doc.docKey));
    junk.unverifiedDocs = junk.unverifiedDocs.filter((title) => !replaced.some((doc) => doc.title === title));
    const loaded: LoadedState = { state, docs: [...docs, ...sources, ...replaced].sort(bySeq), chars, junk, authenticated: this.#key !== undefined, records, workspaceBound };
    this.#checks?.loaded(loaded);
    this.#loaded = loaded;
    this.#docs = this.#docs?.map((doc) => docs.find((read) => read.docKey === doc.docKey) ?? doc);
    return loaded;
  }

  /** The state as this run read it, read now if it was not (callers at once share one read). */
  #loadOnce(): Promise<LoadedState> {
    if (this.#loaded) return Promise.resolve(this.#loaded);
    this.#loading ??= this.load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  async #read(doc: StateDoc, junk: StateJunk): Promise<{ text: string; dataBlockId: BlockId | undefined }> {
    const read = dataOf(await this.#client.readBlocks(doc.docKey));
    if (read.text.length <= MAX_DOC_CHARS) return read;
    junk.oversized.push(doc.title);
    return { text: read.text.slice(0, MAX_DOC_CHARS).replace(/\S*$/, ''), dataBlockId: undefined };
  }

  /**
   * A document counts when it can be kbsync's: with a key, only documents whose title the key signs (a
   * reader with the key reads nothing else); without one, every document with a state title but the form
   * only a kbsync with a key gives (which load() either refuses to write beside, or leaves out).
   */
  #trusted(doc: StateDoc): boolean {
    if (this.#made.has(doc.docKey)) return true;
    const signed = parseTitle(doc.title, this.#key)?.signed;
    return this.#key ? signed === 'signed' : signed !== undefined && signed !== 'keyed';
  }

  /**
   * A machine without the key, and documents titled as a kbsync with a key titles its state. A title says
   * nothing (anyone can give a document one); what a kbsync with a key writes into them does: signed pieces.
   * The newest are read (after MAX_JUNK_DOCS of them holding none, the rest are left, as for other junk):
   * one holding signed pieces is a keyed team's state, or a copy of one, which this machine cannot tell
   * apart, so it stops before doing anything (its records would be ignored by every kbsync with the key);
   * one holding none is someone else's document with a state-like title, left out and said once per run.
   */
  async #keyedLookalikes(listed: readonly StateDoc[], junk: StateJunk): Promise<void> {
    const keyed = listed.filter((doc) => parseTitle(doc.title, undefined)?.signed === 'keyed').sort((a, b) => b.seq - a.seq);
    for (const [i, doc] of keyed.entries()) {
      if (i >= MAX_JUNK_DOCS) {
        junk.unreadDocs += keyed.length - i;
        return;
      }
      const { text } = await this.#read(doc, junk);
      if (text.split(/\s+/).some(isSignedToken)) refuseWithoutKey(doc, keyed.length);
      junk.keyedLookalikes.push(doc.title);
    }
  }

  /**
   * The text of each file whose source hash is asked for (those found). Only the sources documents the
   * index names for those hashes are read, each once per run; documents it names for none (written before
   * the index named them) are read when a hash is not found otherwise.
   */
  async sources(hashes: ReadonlySet<string>): Promise<Map<string, string>> {
    const wanted = [...hashes].filter((hash) => !this.#sources.has(hash));
    if (wanted.length > 0) {
      const state = (await this.#loadOnce()).state;
      const all = (await this.documents()).filter((doc) => doc.family === 'sources');
      const named = new Set(wanted.flatMap((hash) => state.sourceDocs.get(hash) ?? []));
      const mapped = new Set([...state.sourceDocs.values()].flat());
      const missing = wanted.some((hash) => !state.sourceDocs.has(hash));
      const toRead = all.filter((doc) => named.has(doc.docKey) || (missing && !mapped.has(doc.docKey))).slice(0, MAX_DOCS_READ);
      await Promise.all(toRead.map((doc) => this.#readSources(doc)));
    }
    const out = new Map<string, string>();
    for (const hash of hashes) {
      const text = joinSource(this.#sources.get(hash) ?? []);
      if (text !== undefined) out.set(hash, text);
    }
    return out;
  }

  #readSources(doc: StateDoc): Promise<void> {
    let reading = this.#sourcesRead.get(doc.docKey);
    if (!reading) {
      reading = this.#decodeSources(doc);
      this.#sourcesRead.set(doc.docKey, reading);
    }
    return reading;
  }

  async #decodeSources(doc: StateDoc): Promise<void> {
    const junk = this.#loaded?.junk ?? emptyJunk();
    const decoded = decodeTokens((await this.#read(doc, junk)).text, this.#key);
    junk.unverifiedTokens += decoded.unverified;
    junk.damagedTokens += decoded.damaged;
    if (decoded.damaged + decoded.unverified > 0) junk.docs.push(doc.title);
    for (const chunk of decoded.chunks) this.#sources.set(chunk.h, [...(this.#sources.get(chunk.h) ?? []), chunk]);
  }

  /** Known to the state this run read (or kept by this run): no need to keep it again. */
  hasSource(hash: string): boolean {
    return this.#sources.has(hash) || (this.#loaded?.state.sourceDocs.has(hash) ?? false);
  }

  /**
   * Appends records (index) and sources: each family in as few calls as its size allows, every batch
   * stamped with this writer's clock. Sources go first, and where they went is recorded in the index in
   * the same append as the records. `fresh`: into new documents only (a compaction). Returns the records
   * written with their stamps, each confirmed in the knowledge base.
   */
  async publish(records: readonly StateRecord[], sources: readonly Source[] = [], options: { readonly fresh?: boolean } = {}): Promise<readonly Stamped[]> {
    const all = [...records, ...(await this.placeSources(sources, options))];
    if (all.length === 0) return [];
    const stamped: Stamped[] = [];
    const tokens = batches(all).map((batch) => {
      const c = this.clock.next();
      stamped.push(...batch.map((record, i) => ({ record, c, w: this.clock.writer, i })));
      return encodeRecords(batch, { w: this.clock.writer, c }, this.#key);
    });
    await this.#append('state', tokens, options.fresh);
    return stamped;
  }

  /** Appends sources; returns the index records that say where each one went (to be appended by the caller). */
  async placeSources(sources: readonly Source[], options: { readonly fresh?: boolean } = {}): Promise<StateRecord[]> {
    if (sources.length === 0) return [];
    const placed = await this.#append('sources', sources.flatMap((source) => encodeSource(source.hash, source.text, this.#key)), options.fresh);
    for (const source of sources) this.#sources.set(source.hash, encodeSource(source.hash, source.text).flatMap((token) => decodeTokens(token, undefined).chunks));
    return [...placed].map(([docKey, tokens]): StateRecord => ({ t: 'src', d: docKey, h: [...new Set(tokens.map(hashOfChunk))] }));
  }

  /** Index tokens written as they are (a compaction's copies, whose stamps they keep). */
  async appendTokens(tokens: readonly string[], options: { readonly fresh?: boolean } = {}): Promise<void> {
    if (tokens.length > 0) await this.#append('state', tokens, options.fresh);
  }

  /** Records as stamped, signed tokens (one per batch), for the caller to append with others. */
  encode(records: readonly StateRecord[]): string[] {
    return batches(records).map((batch) => this.#stampedToken(batch));
  }

  /** A stamped copy of records: what a compaction writes (each record keeps the stamp it was first written with). */
  encodeCopies(records: readonly Stamped[]): string[] {
    const stamp = { w: this.clock.writer, c: this.clock.next() };
    return batches(records).map((batch) => encodeRecords(batch.map((s) => ({ ...s.record, '@': [s.c, s.w, s.i] as const })), stamp, this.#key));
  }

  /** Deletes a state document (already gone counts as done). */
  async deleteDocument(nodeId: string): Promise<void> {
    try {
      await this.#client.deleteDocument(this.#workspaceId, nodeId as Parameters<KbClient['deleteDocument']>[1]);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Creation ids of state documents this writer made (this run): a keyless writer deletes only those. */
  madeIds(): ReadonlyMap<string, string | null> {
    return this.#made;
  }

  /** Reads one index document now (a compaction's last look before it deletes it); undefined when it is gone. */
  async readTokens(doc: StateDoc): Promise<IndexToken[] | undefined> {
    try {
      return decodeTokens((await this.#read(doc, emptyJunk())).text, this.#key, doc.seq).index.filter((token) => !(token.workspace && this.#bound));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Forgets what this run listed: the next look lists the state folder again. */
  forgetListing(): void {
    this.#docs = undefined;
  }

  async #listDocs(fresh = false): Promise<StateDoc[]> {
    if (this.#docs && !fresh) return this.#docs;
    // The folder the last run found (kept by the ledger) saves listing the root; if it is gone, the root is listed.
    const remembered = this.#folderId === undefined && !this.#searched ? this.#cache?.folder?.read() : undefined;
    let folder = this.#folderId ?? (remembered as TreeNodeId | undefined) ?? (this.#searched ? undefined : await this.#findFolder());
    this.#searched = true;
    let children = folder ? await this.#children(folder) : [];
    if (children === undefined && remembered !== undefined) {
      folder = await this.#findFolder();
      children = folder ? await this.#children(folder) : [];
    }
    this.#folderId = children === undefined ? undefined : folder;
    if (this.#folderId !== undefined && this.#folderId !== remembered) this.#cache?.folder?.write(this.#folderId);
    this.#docs = (children ?? []).flatMap((node) => stateDocOf(node) ?? []).sort(bySeq);
    this.#listedAt = this.#now();
    this.#foreign = (children ?? []).filter((node) => !stateDocOf(node)).map((node) => node.title);
    return this.#docs;
  }

  /** The state folder's children; undefined when the folder is gone (deleted by hand since it was found). */
  async #children(folder: TreeNodeId): Promise<RemoteNode[] | undefined> {
    const children: RemoteNode[] = [];
    try {
      for await (const node of this.#client.listNodes(folder)) children.push(node);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return undefined;
    }
    return children;
  }

  async #findFolder(): Promise<TreeNodeId | undefined> {
    for await (const node of this.#client.listNodes(this.#rootId)) if (node.type === 'FOLDER' && node.title === STATE_FOLDER) return node.treeNodeId;
    return undefined;
  }

  async #ensureFolder(): Promise<TreeNodeId> {
    if (!this.#folderId && !this.#searched) this.#folderId = await this.#findFolder();
    this.#searched = true;
    if (this.#folderId) return this.#folderId;
    try {
      const made = await this.#client.createDocument(this.#workspaceId, { name: STATE_FOLDER, parentNodeId: this.#rootId, folder: true });
      this.#folderId = made.treeNodeId;
      this.#cache?.folder?.write(made.treeNodeId);
    } catch (error) {
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      const found = await this.#findFolder();
      if (!found) throw error;
      this.#folderId = found;
    }
    return this.#folderId;
  }

  /**
   * The document appends of a family go to: the newest one that is kbsync's, not retired and not full.
   * The one the last run used (kept by the ledger) serves without a listing while it was confirmed newest
   * within half the grace period; a compaction deletes a document no sooner than a whole grace period
   * after retiring it, so an append never lands in a document about to be deleted.
   */
  async #target(family: Family): Promise<StateDoc | undefined> {
    const cached = this.#freshTarget(family);
    if (this.#docs === undefined || this.#now() - this.#listedAt > GRACE_MS / 2) {
      if (cached && cached.chars < this.#docChars) return cached;
      await this.#listDocs(true);
    }
    // Which documents are kbsync's (their creation ids recorded) and which are retired is the index's to say.
    const state = (await this.#loadOnce()).state;
    const eligible = (this.#docs ?? []).filter(
      (doc) => doc.family === family && this.#trusted(doc) && !state.retired.has(doc.docKey) && (this.#made.has(doc.docKey) || state.journals.has(doc.docKey) || this.#isCached(doc)),
    );
    let newest = eligible.at(-1);
    if (!newest) return undefined;
    // The document the last run appended to, still the newest: its paragraph is known without a read.
    const last = this.#cache?.read()?.find((doc) => doc.docKey === newest?.docKey);
    if (newest.dataBlockId === undefined && last?.dataBlockId !== undefined) newest = { ...newest, dataBlockId: last.dataBlockId, chars: last.chars };
    if (newest.dataBlockId === undefined) newest = await this.#refresh(newest);
    return newest.chars < this.#docChars ? newest : undefined;
  }

  /** The document the last run appended to, while it was confirmed the newest within half the grace period. */
  #freshTarget(family: Family): CachedTarget | undefined {
    const cached = this.#cache?.read()?.find((doc) => doc.family === family);
    return cached && cached.dataBlockId !== undefined && this.#now() - cached.confirmedAt <= GRACE_MS / 2 ? cached : undefined;
  }

  /**
   * Whether a publish should read the state first: not read this run, and no document known to append to
   * (the state is then read at least once per half grace period by a writer that keeps writing).
   */
  get needsLoad(): boolean {
    return this.#loaded === undefined && this.#freshTarget('state') === undefined;
  }

  #isCached(doc: StateDoc): boolean {
    return (this.#cache?.read() ?? []).some((cached) => cached.docKey === doc.docKey);
  }

  /**
   * Appends tokens to the family's newest document, then to new documents as it fills up: each new one
   * takes as many tokens as it holds in its one overwrite, after its creation ids are recorded in the
   * index (so no crash leaves a state document nobody can delete). Returns which tokens went where.
   */
  async #append(family: Family, tokens: readonly string[], fresh = false): Promise<Map<string, string[]>> {
    const placed = new Map<string, string[]>();
    let next = 0;
    const target = tokens.length > 0 && !fresh ? await this.#target(family) : undefined;
    if (target) {
      const taken: string[] = [];
      let chars = target.chars;
      for (; next < tokens.length && chars + (tokens[next] as string).length + 1 <= this.#docChars; next += 1) {
        taken.push(tokens[next] as string);
        chars += (tokens[next] as string).length + 1;
      }
      if (taken.length > 0) {
        await this.#appendTo(target, taken);
        placed.set(target.docKey, taken);
      }
    }
    const groups = pack(tokens.slice(next), this.#docChars - 300);
    if (groups.length === 0) return placed;
    const made = await this.#createDocs(family, groups.length);
    for (const [i, doc] of made.entries()) {
      const group = groups[i] as string[];
      await this.#fill(doc.doc, [...(doc.journal ? [doc.journal] : []), ...group], i === made.length - 1);
      placed.set(doc.doc.docKey, group);
    }
    return placed;
  }

  /**
   * Makes `count` new documents for a family. Each one's first token names it (its creation ids: a reader
   * tells the document kbsync made under a title from a copy). A sources document's ids also go into the
   * index before it is written, so a crash in between leaves no sources document nobody can delete.
   */
  async #createDocs(family: Family, count: number): Promise<{ doc: StateDoc; journal: string | undefined }[]> {
    const index = family === 'sources' ? await this.#target('state') : undefined;
    const folder = await this.#ensureFolder();
    let seq = Math.max(0, ...(await this.#listDocs()).filter((d) => d.family === family).map((d) => d.seq));
    const made: { doc: StateDoc; journal: string | undefined }[] = [];
    const journals: StateRecord[] = [];
    for (let i = 0; i < count; i += 1) {
      seq += 1;
      const title = newTitle(family, seq, this.#key);
      const created = await this.#create(folder, title);
      this.#made.set(created.docKey, created.nodeId);
      const journal: StateRecord[] = created.nodeId ? [{ t: 'journal', k: created.docKey, n: created.nodeId }] : [];
      journals.push(...journal);
      const doc: StateDoc = { family, seq, docKey: created.docKey, title, dataBlockId: undefined, chars: 0 };
      made.push({ doc, journal: journal.length > 0 ? this.#stampedToken(journal) : undefined });
      this.#docs = [...(this.#docs ?? []), doc].sort(bySeq);
    }
    if (family === 'sources' && journals.length > 0) {
      const token = this.#stampedToken(journals);
      if (index) await this.#appendTo(index, [token]);
      else await this.#append('state', [token]);
    }
    return made;
  }

  #stampedToken(records: readonly StateRecord[]): string {
    return encodeRecords(records, { w: this.clock.writer, c: this.clock.next() }, this.#key);
  }

  async #create(folder: TreeNodeId, title: string): Promise<{ docKey: DocKey; nodeId: string | null }> {
    try {
      const created = await this.#client.createDocument(this.#workspaceId, { name: title, parentNodeId: folder });
      return { docKey: created.docKey, nodeId: created.nodeId };
    } catch (error) {
      // The answer was lost: the title is this writer's alone (its nonce), so the document found under it is this one.
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      for await (const node of this.#client.listNodes(folder)) if (node.title === title && node.docKey) return { docKey: node.docKey, nodeId: null };
      throw error;
    }
  }

  /** Writes a new document whole (its note, then its tokens), checked when the answer is lost; read back when appends go to it next. */
  async #fill(doc: StateDoc, tokens: readonly string[], last: boolean): Promise<void> {
    const text = tokens.join(' ');
    const body = `${NOTES[doc.family]}\n\n${text}\n`;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#client.overwrite(doc.docKey, body);
        break;
      } catch (error) {
        if (!isOutcomeUnknown(error) || attempt >= 3) throw error;
        if (dataOf(await this.#client.readBlocks(doc.docKey)).text === text) break;
      }
    }
    const written = { ...doc, chars: text.length };
    this.#wrote(doc.docKey, true);
    this.#remember(last ? await this.#refresh(written) : written);
  }

  /**
   * Appends tokens to a document. An answer lost on the way (the service may have applied it) is never
   * assumed either way: the document is read, and the append is sent again only when its tokens are not
   * there. A document compacted away meanwhile (or a cached target gone) sends them to the newest one.
   */
  async #appendTo(target: StateDoc, tokens: readonly string[]): Promise<void> {
    let doc = target;
    const text = ` ${tokens.join(' ')}`;
    for (let attempt = 1; ; attempt += 1) {
      let whole: string | undefined;
      try {
        whole = await this.#client.appendText(doc.docKey, doc.dataBlockId as BlockId, text);
      } catch (error) {
        if (isNotFound(error)) {
          // The paragraph is not the one remembered (the document was rewritten), or the document is gone.
          const now = await this.#client.readBlocks(doc.docKey).then(dataOf, (gone: unknown) => (isNotFound(gone) ? undefined : Promise.reject(gone)));
          if (now?.dataBlockId === undefined || now.dataBlockId === doc.dataBlockId) return this.#appendElsewhere(doc, tokens, error);
          doc = { ...doc, dataBlockId: now.dataBlockId, chars: now.text.length };
          continue;
        }
        if (!isOutcomeUnknown(error) || attempt >= 4) throw error;
        this.#logger.debug({ document: doc.title, attempt }, 'the answer to a state append was lost; reading the document to see whether it was applied');
        const now = dataOf(await this.#client.readBlocks(doc.docKey));
        if (!tokens.every((token) => now.text.includes(token))) continue;
        whole = now.text;
      }
      // The answer holds the whole paragraph: its true length, other writers' appends included.
      this.#wrote(doc.docKey, whole !== undefined && whole.length === doc.chars + text.length);
      this.#remember({ ...doc, chars: whole?.length ?? doc.chars + text.length });
      return;
    }
  }

  async #appendElsewhere(doc: StateDoc, tokens: readonly string[], error: unknown): Promise<void> {
    this.#docs = undefined;
    this.#cache?.write((this.#cache.read() ?? []).filter((cached) => cached.docKey !== doc.docKey));
    const target = await this.#target(doc.family);
    if (target?.docKey === doc.docKey) throw error;
    await this.#append(doc.family, tokens);
  }

  async #refresh(doc: StateDoc): Promise<StateDoc> {
    const { text, dataBlockId } = dataOf(await this.#client.readBlocks(doc.docKey));
    const updated = { ...doc, dataBlockId, chars: text.length };
    this.#remember(updated);
    return updated;
  }

  #remember(doc: StateDoc): void {
    if (this.#docs) this.#docs = [...this.#docs.filter((d) => d.docKey !== doc.docKey), doc].sort(bySeq);
    if (doc.dataBlockId === undefined) return;
    const cached = (this.#cache?.read() ?? []).filter((d) => d.family !== doc.family);
    this.#cache?.write([...cached, { ...doc, confirmedAt: this.#now() }]);
  }
}

/** The index documents as listed (titles' keys and times), `times` overriding some. */
const fingerprintOf = (docs: readonly StateDoc[], times: ReadonlyMap<string, string>): string =>
  JSON.stringify(docs.filter((doc) => doc.family === 'state').map((doc) => [doc.docKey, times.get(doc.docKey) ?? doc.modifiedTime ?? '']));

/**
 * The order a run reads index documents in: titles kbsync writes now before the older plain form (which
 * a colleague's copy is likelier to take), each newest first.
 */
function newestFirst(a: StateDoc, b: StateDoc): number {
  const legacy = (doc: StateDoc): number => (parseTitle(doc.title, undefined)?.signed === 'legacy' ? 1 : 0);
  return legacy(a) - legacy(b) || bySeq(b, a);
}

/**
 * A machine without the key must not write into a team's signed state: its records would be ignored by every
 * kbsync that has the key (the creation ids of what it makes lost to them), so it stops before doing anything.
 * What it found is said as it is: documents in the form a kbsync with a key writes, which may be the team's
 * state or a copy someone put there; and what to do in either case.
 */
function refuseWithoutKey(evidence: StateDoc, keyed: number): never {
  throw new SafetyError(
    'STATE_KEY_NEEDED',
    `The ${STATE_FOLDER} folder holds ${keyed === 1 ? '1 document' : `${keyed} documents`} written as a kbsync with a state key writes its state (${oneLine(evidence.title)}${keyed > 1 ? ` and ${keyed - 1} more titled so` : ''}, its pieces signed), and this machine has no key to check them with: what it wrote, the team's kbsyncs would ignore. It stops here.`,
    {
      hint:
        "If your team uses a state key, put it in this machine's key file (~/.config/kbsync/state-key-<workspace>; `kbsync clone` with KBSYNC_STATE_KEY set keeps it there) or set KBSYNC_STATE_KEY (or state.key); " +
        'in CI, pass it from a secret. If it has none, someone put those documents there: delete them in the knowledge base, then run again.',
    },
  );
}

const hashOfChunk = (token: string): string => decodeTokens(token, undefined).chunks[0]?.h ?? '';

/** Tokens in groups that each fill one new document (with room for its creation ids). */
function pack(tokens: readonly string[], room: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let chars = 0;
  for (const token of tokens) {
    if (group.length > 0 && chars + token.length + 1 > room) {
      groups.push(group);
      group = [];
      chars = 0;
    }
    group.push(token);
    chars += token.length + 1;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Records in batches whose tokens stay well under one document. */
function batches<T>(records: readonly T[], chars = 30_000): T[][] {
  const out: T[][] = [];
  let batch: T[] = [];
  let size = 0;
  for (const record of records) {
    const length = JSON.stringify(record).length;
    if (batch.length > 0 && size + length > chars) {
      out.push(batch);
      batch = [];
      size = 0;
    }
    batch.push(record);
    size += length;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
