import { isNotFound, isOutcomeUnknown, type KbClient } from '../api/index.js';
import type { Logger } from '../log.js';
import type { BlockId } from '../model/ids.js';
import { pack } from './batches.js';
import type { WriterClock } from './clock.js';
import { decodeTokens, encodeRecords } from './codec.js';
import { dataOf, NOTES, newTitle, type Family, type StateDoc } from './documents.js';
import type { FolderCache, StateFolder } from './folder.js';
import { GRACE_MS } from './limits.js';
import { fingerprintOf, type LoadedState } from './read.js';
import type { StateRecord } from './records.js';
import type { StateKey } from './token.js';

/** Where the last run appended, per family, and when it last confirmed that document the newest: kept in the ledger. */
export type TargetCache = {
  read(): readonly CachedTarget[] | undefined;
  write(docs: readonly CachedTarget[]): void;
  /** The state folder the last run found. */
  readonly folder?: FolderCache;
};
export type CachedTarget = StateDoc & { readonly confirmedAt: number };

/**
 * Writing the state: appends of tokens into the newest document of a family, and new documents when it is
 * full. The document appended to is one confirmed newest within half the grace period (compaction.ts
 * deletes a retired document only a whole grace period after retiring it); the one the last run used,
 * kept in the ledger, serves without a listing meanwhile. An append whose answer is lost is read back,
 * never assumed either way.
 */
export class StateAppender {
  readonly #client: KbClient;
  readonly #folder: StateFolder;
  readonly #cache: TargetCache | undefined;
  readonly #clock: WriterClock;
  readonly #key: StateKey | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #docChars: number;
  /** The state as this run read it (read now if it was not). */
  readonly #state: () => Promise<LoadedState>;
  /** State documents this run wrote: true while only this run did (an append's answer shows any other writer's). */
  readonly #written = new Map<string, boolean>();

  constructor(deps: {
    readonly client: KbClient;
    readonly folder: StateFolder;
    readonly cache: TargetCache | undefined;
    readonly clock: WriterClock;
    readonly key: StateKey | undefined;
    readonly logger: Logger;
    readonly now: () => number;
    readonly docChars: number;
    readonly state: () => Promise<LoadedState>;
  }) {
    this.#client = deps.client;
    this.#folder = deps.folder;
    this.#cache = deps.cache;
    this.#clock = deps.clock;
    this.#key = deps.key;
    this.#logger = deps.logger;
    this.#now = deps.now;
    this.#docChars = deps.docChars;
    this.#state = deps.state;
  }

  /** Whether this run wrote to the state at all. */
  get wrote(): boolean {
    return this.#written.size > 0;
  }

  /** Whether the state folder as last listed shows another writer's append since the state was read (this run's own left out). */
  othersAppended(): boolean {
    return this.#folder.changedSinceRead(new Set(this.#written.keys()));
  }

  /**
   * The index fingerprint as the next listing will show it after this run's own writes, their times taken as
   * `minute`; undefined when it cannot tell (the listing was dropped, or another writer's tokens showed up).
   */
  fingerprintAfterWrites(minute: string): string | undefined {
    const docs = this.#folder.listed;
    if (docs === undefined || [...this.#written.values()].some((alone) => !alone)) return undefined;
    // A listing made since the state was read (a document full, a compaction) may show other writers' appends.
    if (this.othersAppended()) return undefined;
    return fingerprintOf(docs, new Map([...this.#written.keys()].map((docKey) => [docKey, minute])));
  }

  #wrote(docKey: string, alone: boolean): void {
    this.#written.set(docKey, alone && this.#written.get(docKey) !== false);
  }

  /** Records as one token stamped with this writer's clock and signed with the key. */
  stampedToken(records: readonly StateRecord[]): string {
    return encodeRecords(records, { w: this.#clock.writer, c: this.#clock.next() }, this.#key);
  }

  /**
   * The document appends of a family go to: the newest one that is kbsync's, not retired and not full.
   * The one the last run used (kept by the ledger) serves without a listing while it was confirmed newest
   * within half the grace period; a compaction deletes a document no sooner than a whole grace period
   * after retiring it, so an append never lands in a document about to be deleted.
   */
  async #target(family: Family): Promise<StateDoc | undefined> {
    const cached = this.freshTarget(family);
    if (this.#folder.olderThan(GRACE_MS / 2)) {
      if (cached && cached.chars < this.#docChars) return cached;
      await this.#folder.list(true);
    }
    // Which documents are kbsync's (their creation ids recorded) and which are retired is the index's to say.
    const state = (await this.#state()).state;
    const eligible = (this.#folder.listed ?? []).filter(
      (doc) =>
        doc.family === family &&
        this.#folder.trusted(doc) &&
        !state.retired.has(doc.docKey) &&
        (this.#folder.made.has(doc.docKey) || state.journals.has(doc.docKey) || this.#isCached(doc)),
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
  freshTarget(family: Family): CachedTarget | undefined {
    const cached = this.#cache?.read()?.find((doc) => doc.family === family);
    return cached && cached.dataBlockId !== undefined && this.#now() - cached.confirmedAt <= GRACE_MS / 2 ? cached : undefined;
  }

  #isCached(doc: StateDoc): boolean {
    return (this.#cache?.read() ?? []).some((cached) => cached.docKey === doc.docKey);
  }

  /**
   * Appends tokens to the family's newest document, then to new documents as it fills up: each new one
   * takes as many tokens as it holds in its one overwrite, after its creation ids are recorded in the
   * index (so no crash leaves a state document nobody can delete). `fresh`: into new documents only.
   * Returns which tokens went where.
   */
  async append(family: Family, tokens: readonly string[], fresh = false): Promise<Map<string, string[]>> {
    const placed = new Map<string, string[]>();
    let rest = tokens;
    if (tokens.length > 0 && !fresh) {
      rest = await this.#appendWhatFits(await this.#target(family), rest, placed);
      // Full: another writer may have started the next document since this run listed (a sibling CI job, a
      // workstation). It is joined, rather than a second document of the same number started beside it.
      if (rest.length > 0) rest = await this.#appendWhatFits(await this.#startedElsewhere(family), rest, placed);
    }
    const groups = pack(rest, this.#docChars - 300);
    if (groups.length === 0) return placed;
    const made = await this.#createDocs(family, groups.length);
    for (const [i, doc] of made.entries()) {
      const group = groups[i] as string[];
      await this.#fill(doc.doc, [...(doc.journal ? [doc.journal] : []), ...group], i === made.length - 1);
      placed.set(doc.doc.docKey, group);
    }
    return placed;
  }

  /** Appends to `target` the tokens that fit, in order; returns the others. */
  async #appendWhatFits(target: StateDoc | undefined, tokens: readonly string[], placed: Map<string, string[]>): Promise<readonly string[]> {
    if (!target) return tokens;
    let next = 0;
    for (let chars = target.chars; next < tokens.length && chars + (tokens[next] as string).length + 1 <= this.#docChars; next += 1) chars += (tokens[next] as string).length + 1;
    if (next === 0) return tokens;
    const taken = tokens.slice(0, next);
    await this.#appendTo(target, taken);
    placed.set(target.docKey, [...(placed.get(target.docKey) ?? []), ...taken]);
    return tokens.slice(next);
  }

  /**
   * The document of a family another writer started after this run's listing (listed again now), when it is
   * kbsync's (its first token names it: its creation ids), not retired, and has room; undefined otherwise.
   * A document still being written (no paragraph yet) is not joined: its one overwrite would replace an append.
   */
  async #startedElsewhere(family: Family): Promise<StateDoc | undefined> {
    const known = this.#folder.listed ?? [];
    const newest = Math.max(0, ...known.filter((doc) => doc.family === family).map((doc) => doc.seq));
    const retired = (await this.#state()).state.retired;
    const listed = await this.#folder.list(true);
    const started = listed
      .filter((doc) => doc.family === family && doc.seq > newest && !known.some((k) => k.docKey === doc.docKey) && this.#folder.trusted(doc) && !retired.has(doc.docKey))
      .at(-1);
    if (!started) return undefined;
    const { text, dataBlockId } = dataOf(await this.#client.readBlocks(started.docKey));
    if (dataBlockId === undefined || !namesItself(text, started.docKey, this.#key)) return undefined;
    const joined = { ...started, dataBlockId, chars: text.length };
    this.#remember(joined);
    if (joined.chars >= this.#docChars) return undefined;
    // What the other writer put there was not folded into this run's state: the next run reads it.
    this.#written.set(joined.docKey, false);
    return joined;
  }

  /**
   * Makes `count` new documents for a family. Each one's first token names it (its creation ids: a reader
   * tells the document kbsync made under a title from a copy). A sources document's ids also go into the
   * index before it is written, so a crash in between leaves no sources document nobody can delete.
   */
  async #createDocs(family: Family, count: number): Promise<{ doc: StateDoc; journal: string | undefined }[]> {
    const index = family === 'sources' ? await this.#target('state') : undefined;
    const folder = await this.#folder.ensure();
    let seq = Math.max(0, ...(await this.#folder.list()).filter((d) => d.family === family).map((d) => d.seq));
    const made: { doc: StateDoc; journal: string | undefined }[] = [];
    const journals: StateRecord[] = [];
    for (let i = 0; i < count; i += 1) {
      seq += 1;
      const created = await this.#folder.create(folder, { family, seq, title: newTitle(family, seq, this.#key), dataBlockId: undefined, chars: 0 });
      const journal: StateRecord[] = created.nodeId ? [{ t: 'journal', k: created.doc.docKey, n: created.nodeId }] : [];
      journals.push(...journal);
      made.push({ doc: created.doc, journal: journal.length > 0 ? this.stampedToken(journal) : undefined });
    }
    if (family === 'sources' && journals.length > 0) {
      const token = this.stampedToken(journals);
      if (index) await this.#appendTo(index, [token]);
      else await this.append('state', [token]);
    }
    return made;
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
    this.#folder.forget();
    this.#cache?.write((this.#cache.read() ?? []).filter((cached) => cached.docKey !== doc.docKey));
    const target = await this.#target(doc.family);
    if (target?.docKey === doc.docKey) throw error;
    await this.append(doc.family, tokens);
  }

  async #refresh(doc: StateDoc): Promise<StateDoc> {
    const { text, dataBlockId } = dataOf(await this.#client.readBlocks(doc.docKey));
    const updated = { ...doc, dataBlockId, chars: text.length };
    this.#remember(updated);
    return updated;
  }

  #remember(doc: StateDoc): void {
    this.#folder.remember(doc);
    if (doc.dataBlockId === undefined) return;
    const cached = (this.#cache?.read() ?? []).filter((d) => d.family !== doc.family);
    this.#cache?.write([...cached, { ...doc, confirmedAt: this.#now() }]);
  }
}

/** Whether a state document's first token is the record of its own creation ids (what kbsync writes first into every document it makes). */
function namesItself(text: string, docKey: string, key: StateKey | undefined): boolean {
  const first = text.trimStart().split(/\s/, 1)[0] ?? '';
  return decodeTokens(first, key).index[0]?.records.some(({ record }) => record.t === 'journal' && record.k === docKey) ?? false;
}
