import { isNotFound, type KbClient } from '../api/index.js';
import type { Logger } from '../log.js';
import type { TreeNodeId, WorkspaceId } from '../model/ids.js';
import { StateAppender, type TargetCache } from './append.js';
import { batches } from './batches.js';
import { WriterClock } from './clock.js';
import { decodeTokens, encodeRecords, encodeSource, type IndexToken, type Stamped } from './codec.js';
import { bySeq, DOC_CHARS, type StateDoc } from './documents.js';
import { StateFolder } from './folder.js';
import { emptyJunk } from './junk.js';
import { fingerprintOf, readData, readIndex, usableTokens, type LoadedState } from './read.js';
import type { StateRecord } from './records.js';
import { KeptSources, type Source } from './sources.js';
import type { StateKey } from './token.js';

export { STATE_FOLDER, type StateDoc } from './documents.js';
export { GRACE_MS } from './limits.js';
export type { CachedTarget, TargetCache } from './append.js';
export type { LoadedState } from './read.js';
export type { Source } from './sources.js';

/** What a load asks before it reads the state, and once it has folded it: each throws to refuse. */
type StateChecks = { listed(docs: readonly StateDoc[]): void; loaded(loaded: LoadedState): void };

/**
 * kbsync's record in the knowledge base: which file is which document, the creation ids the service gives
 * only once, and the Markdown last synced. Every run that needs it reads the index documents (read.ts);
 * writes are appends of signed, stamped tokens into the newest document, and new documents when it is full
 * (append.ts), in the state folder (folder.ts). Records are ordered by their stamps (clock.ts), not by where
 * they sit, and a record read from here is checked (records.ts) and, with the team's key, verified
 * (token.ts) before anything uses it; anything else is junk, counted and left alone. The sources documents
 * are read only when a file's text is needed (sources.ts).
 */
export class RemoteStateStore {
  readonly #client: KbClient;
  readonly #workspaceId: WorkspaceId;
  readonly #key: StateKey | undefined;
  readonly clock: WriterClock;
  readonly #now: () => number;
  readonly #folder: StateFolder;
  readonly #appender: StateAppender;
  readonly #sources: KeptSources;
  readonly #checks: StateChecks | undefined;
  /** Tokens signed for the workspace alone are no longer read (the state was written anew bound to its folder). */
  #bound: boolean;
  #loaded: LoadedState | undefined;
  #loading: Promise<LoadedState> | undefined;

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
    this.#key = deps.key;
    this.#now = deps.now ?? Date.now;
    this.clock = deps.clock ?? new WriterClock({ now: this.#now });
    this.#checks = deps.checks;
    this.#bound = deps.bound ?? false;
    this.#folder = new StateFolder({ client: deps.client, workspaceId: deps.workspaceId, rootId: deps.rootId, key: deps.key, cache: deps.cache?.folder, now: this.#now });
    this.#appender = new StateAppender({
      client: deps.client,
      folder: this.#folder,
      cache: deps.cache,
      clock: this.clock,
      key: deps.key,
      logger: deps.logger,
      now: this.#now,
      docChars: deps.docChars ?? DOC_CHARS,
      state: () => this.#loadOnce(),
    });
    this.#sources = new KeptSources({ client: deps.client, key: deps.key });
  }

  /** Whether this machine holds the team's key (records are then verified). */
  get authenticated(): boolean {
    return this.#key !== undefined;
  }

  /**
   * Whether another writer appended to the state since this run read it: one fresh listing of its folder (the
   * index documents' times), asked only where a decision hangs on a record that read may lack (a time no record
   * explains: sync/decide/body.ts recordMayCome). False when this run read no state. The listing is kept, so the
   * fingerprint this run leaves for the next (fingerprintAfterWrites) says the state changed, and the next reads it.
   */
  async appendedSinceRead(): Promise<boolean> {
    if (this.#loaded === undefined) return false;
    await this.#folder.list(true);
    return this.#appender.othersAppended();
  }

  /** The state documents that count (listed, not read): where the state lives and how much of it there is. */
  async documents(): Promise<readonly StateDoc[]> {
    return (await this.#folder.list()).filter((doc) => this.#folder.trusted(doc));
  }

  /**
   * What the index documents looked like when listed (titles and times): unchanged since the state was last
   * read, the state is too, so a run that only wants to know about other machines' versions need not read it.
   */
  async indexFingerprint(): Promise<string> {
    return fingerprintOf(this.#keyChecked(await this.#folder.list()), new Map());
  }

  /**
   * The listed documents, once this machine's key is found to be the team's from their titles (refused
   * otherwise: sync/state/key-check.ts). A machine without a key is checked when it reads the state
   * (read.ts: a title alone does not tell a team's signed state from a look-alike).
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
    return this.#appender.fingerprintAfterWrites(minute);
  }

  /** Whether this run wrote to the state at all. */
  get wrote(): boolean {
    return this.#appender.wrote;
  }

  /** What else the state folder holds (someone's own folder that happens to share its name): never synced, and said. */
  foreign(): readonly string[] {
    return this.#folder.foreign;
  }

  /** The state folder as the run's listing saw it (undefined: there is none yet). */
  seen(folderId: TreeNodeId | undefined): void {
    this.#folder.seen(folderId);
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
    // Before the listing (a listing made a moment ago, the run's look at the index's times, is the one to read by):
    // what was appended after the read began may be missing. With no answer before it, the time its own answers told.
    const began = this.#client.serverTime();
    const listed = this.#keyChecked(await this.#folder.list(this.#folder.olderThan(2_000)));
    const { read, replaced, bound, ...index } = await readIndex({ client: this.#client, key: this.#key, trusted: (doc) => this.#folder.trusted(doc), bound: this.#bound }, listed);
    this.#bound = bound;
    this.clock.observe(index.state.clock);
    const sources = listed.filter((doc) => doc.family === 'sources' && this.#folder.trusted(doc));
    const readAt = (began ?? this.#client.serverTime())?.getTime();
    const loaded: LoadedState = { ...index, docs: [...read, ...sources, ...replaced].sort(bySeq), authenticated: this.#key !== undefined, ...(readAt !== undefined ? { readAt } : {}) };
    this.#checks?.loaded(loaded);
    this.#loaded = loaded;
    this.#folder.rememberRead(read);
    this.#folder.markRead();
    return loaded;
  }

  /** The state as this run read it, read now if it was not (callers at once share one read). */
  #loadOnce(): Promise<LoadedState> {
    if (this.#loaded) return Promise.resolve(this.#loaded);
    this.#loading ??= this.load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /**
   * The text of each file whose source hash is asked for (those found). Only the sources documents the
   * index names for those hashes are read, each once per run; documents it names for none (written before
   * the index named them) are read when a hash is not found otherwise.
   */
  sources(hashes: ReadonlySet<string>): Promise<Map<string, string>> {
    return this.#sources.texts(hashes, async () => {
      const loaded = await this.#loadOnce();
      return { state: loaded.state, docs: await this.documents(), junk: loaded.junk };
    });
  }

  /** Known to the state this run read (or kept by this run): no need to keep it again. */
  hasSource(hash: string): boolean {
    return this.#sources.has(hash) || (this.#loaded?.state.sourceDocs.has(hash) ?? false);
  }

  /**
   * Whether a publish should read the state first: not read this run, and no document known to append to
   * (the state is then read at least once per half grace period by a writer that keeps writing).
   */
  get needsLoad(): boolean {
    return this.#loaded === undefined && this.#appender.freshTarget('state') === undefined;
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
    await this.#appender.append('state', tokens, options.fresh);
    return stamped;
  }

  /** Appends sources; returns the index records that say where each one went (to be appended by the caller). */
  async placeSources(sources: readonly Source[], options: { readonly fresh?: boolean } = {}): Promise<StateRecord[]> {
    if (sources.length === 0) return [];
    const placed = await this.#appender.append('sources', sources.flatMap((source) => encodeSource(source.hash, source.text, this.#key)), options.fresh);
    for (const source of sources) this.#sources.keep(source);
    return [...placed].map(([docKey, tokens]): StateRecord => ({ t: 'src', d: docKey, h: [...new Set(tokens.map(hashOfChunk))] }));
  }

  /** Index tokens written as they are (a compaction's copies, whose stamps they keep). */
  async appendTokens(tokens: readonly string[], options: { readonly fresh?: boolean } = {}): Promise<void> {
    if (tokens.length > 0) await this.#appender.append('state', tokens, options.fresh);
  }

  /** Records as stamped, signed tokens (one per batch), for the caller to append with others. */
  encode(records: readonly StateRecord[]): string[] {
    return batches(records).map((batch) => this.#appender.stampedToken(batch));
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
    return this.#folder.made;
  }

  /** Reads one index document now (a compaction's last look before it deletes it); undefined when it is gone. */
  async readTokens(doc: StateDoc): Promise<IndexToken[] | undefined> {
    try {
      return usableTokens(decodeTokens((await readData(this.#client, doc, emptyJunk())).text, this.#key, doc.seq).index, this.#bound);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Forgets what this run listed: the next look lists the state folder again. */
  forgetListing(): void {
    this.#folder.forget();
  }
}

const hashOfChunk = (token: string): string => decodeTokens(token, undefined).chunks[0]?.h ?? '';
