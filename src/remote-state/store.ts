import { isConflict, isNotFound, isOutcomeUnknown, type KbClient, type RemoteNode } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Block } from '../model/blocks.js';
import { asCreationNodeId, type BlockId, type DocKey, type TreeNodeId, type WorkspaceId } from '../model/ids.js';
import { decodeTokens, encodeRecords, encodeSource, joinSource, type SourceChunk, type StateRecord } from './codec.js';
import { foldState, type SharedState } from './state.js';

/** The folder, under the synced root, that holds kbsync's state documents. */
export const STATE_FOLDER = '.kbsync';

/** Index documents hold the records every run reads; sources documents the files' text, read only when needed. */
export type Family = 'state' | 'sources';

/** Characters of tokens per state document: under the 50,000 the service takes in one overwrite, with the note. */
export const DOC_CHARS = 45_000;
/** Room a new index document keeps for its own creation ids beside the tokens it starts with. */
const JOURNAL_ROOM = 200;

const NOTES: Record<Family, string> = {
  state:
    "kbsync state (index): this document records which file of the synced folder is which document, so that every workstation and CI run syncs this folder the same way and never duplicates a document. kbsync writes it; do not edit, move or delete it. If kbsync reports it damaged, see 'Remote state' in kbsync's README.",
  sources:
    "kbsync state (sources): this document keeps the Markdown of each synced file as last synced, so that another workstation gets the files back exactly and merges against the right text. kbsync writes it; do not edit, move or delete it. If kbsync reports it damaged, see 'Remote state' in kbsync's README.",
};

/** Where the last run appended, per family: kept in the ledger so the next run's append needs no lookup. */
export type TargetCache = { read(): readonly StateDoc[] | undefined; write(docs: readonly StateDoc[]): void };

/** A state document as last read or written: where the next append goes, and how full it is. */
export type StateDoc = {
  readonly family: Family;
  readonly seq: number;
  readonly docKey: DocKey;
  readonly title: string;
  /** The paragraph appends go to. */
  readonly dataBlockId: BlockId | undefined;
  readonly chars: number;
  /** As listed ('' when not listed: made or read by this run). */
  readonly modifiedTime?: string;
};

export type LoadedState = {
  readonly state: SharedState;
  readonly docs: readonly StateDoc[];
  /** Characters of every index token, for the compaction rule and `kbsync status`. */
  readonly chars: number;
};

const TITLE = /^kbsync-(state|sources)-(\d{6})$/;
export const titleFor = (family: Family, seq: number): string => `kbsync-${family}-${String(seq).padStart(6, '0')}`;

/**
 * kbsync's record in the knowledge base: which file is which document, the creation ids the service gives
 * only once, and the Markdown last synced. Every run that lists the service reads the index documents;
 * writes are appends (the service applies them in order, so concurrent writers do not overwrite each
 * other) into the newest document, and a new document when it is full. The sources documents are read
 * only when a file's text is needed (a clone, a merge).
 */
export class RemoteStateStore {
  readonly #client: KbClient;
  readonly #workspaceId: WorkspaceId;
  readonly #rootId: TreeNodeId;
  readonly #logger: Logger;
  #folderId: TreeNodeId | undefined;
  /** The root was listed, so an undefined folder means there is none (no need to look again). */
  #searched = false;
  #docs: StateDoc[] | undefined;
  #foreign: string[] = [];
  #sourcesCache: Map<string, string> | undefined;
  /** Documents numbered below these were superseded by a rewrite (see #readIndex). */
  #below = { state: 0, sources: 0 };

  readonly #cache: TargetCache | undefined;

  constructor(deps: { readonly client: KbClient; readonly workspaceId: WorkspaceId; readonly rootId: TreeNodeId; readonly logger: Logger; readonly cache?: TargetCache }) {
    this.#client = deps.client;
    this.#workspaceId = deps.workspaceId;
    this.#rootId = deps.rootId;
    this.#logger = deps.logger;
    this.#cache = deps.cache;
  }

  /** The state documents (listed, not read): where the state lives and how much of it there is. */
  async documents(): Promise<readonly StateDoc[]> {
    const below = this.#below;
    return (await this.#listDocs()).filter((doc) => doc.seq >= below[doc.family]);
  }

  /**
   * What the index documents looked like when listed (titles and times): unchanged since the state was last
   * read, the state is too, so a run that only wants to know about other machines' versions need not read it.
   */
  async indexFingerprint(): Promise<string> {
    const index = (await this.#listDocs()).filter((doc) => doc.family === 'state');
    return JSON.stringify(index.map((doc) => [doc.docKey, doc.modifiedTime ?? '']));
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

  /**
   * Reads every index document and folds its records. A token that fails its checksum (the text was
   * edited) refuses the run: a damaged state is never trusted, and never the cause of a deletion.
   */
  async load(): Promise<LoadedState> {
    const index = await this.#readIndex();
    if (index.damaged.length > 0) throw damagedError(index.damaged);
    return { state: foldState(index.records), docs: index.docs, chars: index.chars };
  }

  /** Everything the index says, damaged documents named rather than refused: for `kbsync state`. */
  async inspect(): Promise<LoadedState & { readonly damaged: readonly string[] }> {
    const index = await this.#readIndex();
    return { state: foldState(index.records), docs: index.docs, chars: index.chars, damaged: index.damaged };
  }

  /**
   * Reads every index document. A rewrite of the state (`kbsync state rewrite`) leaves a reset record: the
   * documents it superseded are skipped, damaged or not.
   */
  async #readIndex(): Promise<{ records: StateRecord[]; damaged: string[]; docs: StateDoc[]; chars: number }> {
    const read: (StateDoc & { decoded?: ReturnType<typeof decodeTokens>; text: string })[] = [];
    for (const doc of await this.#listDocs()) {
      if (doc.family !== 'state') {
        read.push({ ...doc, text: '' });
        continue;
      }
      const { text, dataBlockId } = dataOf(await this.#client.readBlocks(doc.docKey));
      read.push({ ...doc, dataBlockId, chars: text.length, text, decoded: decodeTokens(text) });
    }
    const below = { state: 0, sources: 0 };
    for (const doc of read) {
      for (const record of doc.decoded?.records ?? []) if (record.t === 'reset') below[record.family] = Math.max(below[record.family], record.below);
    }
    this.#below = below;
    const live = read.filter((doc) => doc.seq >= below[doc.family]);
    const damaged = live.flatMap((doc) => {
      const bad = (doc.decoded?.damaged.length ?? 0) + (doc.decoded?.chunks.length ?? 0);
      return bad > 0 ? [`${doc.title} (${bad} damaged piece(s))`] : [];
    });
    const strip = ({ decoded: _decoded, text: _text, ...doc }: (typeof read)[number]): StateDoc => doc;
    // Every document stays known (a new one must not take a superseded one's number); only the live ones count.
    this.#docs = read.map(strip);
    const docs = live.map(strip);
    return { records: live.flatMap((doc) => doc.decoded?.records ?? []), damaged, docs, chars: live.reduce((sum, doc) => sum + doc.text.length, 0) };
  }

  /**
   * Writes the state anew: the sources and records given into fresh documents, behind a reset that makes
   * every earlier document (damaged ones included) superseded; those whose creation ids are known are deleted.
   */
  async rewrite(records: readonly StateRecord[], sources: readonly { readonly hash: string; readonly text: string }[], oldJournals: ReadonlyMap<string, string>): Promise<void> {
    const all = await this.#listDocs();
    const next = (family: Family): number => Math.max(0, ...all.filter((d) => d.family === family).map((d) => d.seq)) + 1;
    const resets: StateRecord[] = [
      { t: 'reset', family: 'sources', below: next('sources') },
      { t: 'reset', family: 'state', below: next('state') },
    ];
    if (sources.length > 0) await this.#append('sources', sources.flatMap((source) => encodeSource(source.hash, source.text)), true);
    await this.#append('state', batches([...resets, ...records]).map(encodeRecords), true);
    for (const doc of all) {
      const nodeId = oldJournals.get(doc.docKey);
      if (nodeId) await this.#client.deleteDocument(this.#workspaceId, asCreationNodeId(nodeId)).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
    }
  }

  /** The text of each file whose source hash is asked for (those found): reads the sources documents once per run. */
  async sources(hashes: ReadonlySet<string>): Promise<Map<string, string>> {
    if (!this.#sourcesCache) {
      const chunks = new Map<string, SourceChunk[]>();
      const damaged: string[] = [];
      for (const doc of (await this.#listDocs()).filter((d) => d.family === 'sources' && d.seq >= this.#below.sources)) {
        const decoded = decodeTokens(dataOf(await this.#client.readBlocks(doc.docKey)).text);
        if (decoded.damaged.length > 0) damaged.push(`${doc.title} (${decoded.damaged.length} damaged piece(s))`);
        for (const chunk of decoded.chunks) chunks.set(chunk.h, [...(chunks.get(chunk.h) ?? []), chunk]);
      }
      if (damaged.length > 0) throw damagedError(damaged);
      this.#sourcesCache = new Map();
      for (const [hash, parts] of chunks) {
        const text = joinSource(parts);
        if (text !== undefined) this.#sourcesCache.set(hash, text);
      }
    }
    return new Map([...hashes].flatMap((hash) => (this.#sourcesCache?.has(hash) ? [[hash, this.#sourcesCache.get(hash) as string]] : [])));
  }

  /** Appends records (index) and sources; each family in as few calls as its size allows. */
  async publish(records: readonly StateRecord[], sources: readonly { readonly hash: string; readonly text: string }[]): Promise<void> {
    if (sources.length > 0) await this.#append('sources', sources.flatMap((source) => encodeSource(source.hash, source.text)));
    if (records.length > 0) await this.#append('state', batches(records).map(encodeRecords));
    for (const source of sources) this.#sourcesCache?.set(source.hash, source.text);
  }

  /**
   * Rewrites the index into fresh documents when most of what it holds is superseded (a path's older
   * records), then deletes the old documents. Records appended by another writer between the read and the
   * deletion are copied over first, so none is lost.
   */
  async compact(loaded: LoadedState, liveRecords: readonly StateRecord[]): Promise<boolean> {
    const old = loaded.docs.filter((doc) => doc.family === 'state');
    const liveChars = batches(liveRecords).map(encodeRecords).join(' ').length;
    if (old.length < 3 || liveChars * 2 > loaded.chars) return false;
    const seen = new Set<string>();
    for (const doc of old) for (const token of dataOf(await this.#client.readBlocks(doc.docKey)).text.split(/\s+/)) seen.add(token);
    await this.#append('state', batches(liveRecords).map(encodeRecords), true);
    // Whatever another writer appended to the old documents meanwhile moves to the new ones.
    const late: string[] = [];
    for (const doc of old) for (const token of dataOf(await this.#client.readBlocks(doc.docKey)).text.split(/\s+/)) if (token !== '' && !seen.has(token)) late.push(token);
    if (late.length > 0) await this.#append('state', late);
    for (const doc of old) {
      const nodeId = loaded.state.journals.get(doc.docKey);
      if (!nodeId) continue;
      try {
        await this.#client.deleteDocument(this.#workspaceId, asCreationNodeId(nodeId));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    this.#logger.info({ documents: old.length }, `compacted kbsync's state in the knowledge base (${old.length} documents rewritten)`);
    return true;
  }

  async #listDocs(): Promise<StateDoc[]> {
    if (this.#docs) return this.#docs;
    const folder = this.#folderId ?? (this.#searched ? undefined : await this.#findFolder());
    this.#folderId = folder;
    this.#searched = true;
    const children: RemoteNode[] = [];
    if (folder) for await (const node of this.#client.listNodes(folder)) children.push(node);
    this.#docs = children.flatMap((node) => docOf(node));
    this.#foreign = children.filter((node) => docOf(node).length === 0).map((node) => node.title);
    return this.#docs;
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
    } catch (error) {
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      const found = await this.#findFolder();
      if (!found) throw error;
      this.#folderId = found;
    }
    return this.#folderId;
  }

  /**
   * The document appends of a family go to: the newest one this run knows, else the one the last run used
   * (kept by the ledger, so a push appends without listing or reading anything), else found by listing.
   */
  async #target(family: Family): Promise<StateDoc | undefined> {
    const cached = this.#docs === undefined ? this.#cache?.read()?.find((doc) => doc.family === family) : undefined;
    if (cached?.dataBlockId !== undefined) return cached;
    const newest = (await this.#listDocs()).filter((doc) => doc.family === family).at(-1);
    return newest && newest.dataBlockId === undefined ? this.#refresh(newest) : newest;
  }

  /**
   * Appends tokens to the family's newest document, starting new documents as they fill up. A new document
   * takes in its one overwrite as many of the next tokens as it holds; only the last one made is read back
   * (for the paragraph the next append goes to): a full one is never appended to again. Publishing the
   * sources of a thousand new pages (sixty documents, written one after the other at the end of a push)
   * took five calls a document, now three.
   */
  async #append(family: Family, tokens: readonly string[], fresh = false): Promise<void> {
    let target = fresh ? undefined : await this.#target(family);
    let pending: string[] = [];
    let pendingChars = 0;
    const flush = async (): Promise<void> => {
      if (!target || pending.length === 0) return;
      target = await this.#appendTo(target, ` ${pending.join(' ')}`);
      pending = [];
      pendingChars = 0;
    };
    for (let next = 0; next < tokens.length; ) {
      const token = tokens[next] as string;
      if (target && target.dataBlockId !== undefined && target.chars + pendingChars + token.length + 1 <= DOC_CHARS) {
        pending.push(token);
        pendingChars += token.length + 1;
        next += 1;
        continue;
      }
      await flush();
      const group = [token];
      let chars = token.length + JOURNAL_ROOM;
      for (next += 1; next < tokens.length && chars + (tokens[next] as string).length + 1 <= DOC_CHARS; next += 1) {
        group.push(tokens[next] as string);
        chars += (tokens[next] as string).length + 1;
      }
      const started = await this.#startDoc(family, group, next === tokens.length);
      target = started.doc;
      // Another writer made that document first: what it did not take goes through the appends.
      next -= group.length - started.taken;
    }
    await flush();
  }

  async #appendTo(doc: StateDoc, text: string): Promise<StateDoc> {
    let whole: string | undefined;
    try {
      whole = await this.#client.appendText(doc.docKey, doc.dataBlockId as BlockId, text);
    } catch (error) {
      // Compacted away by another writer meanwhile (or a cached target gone): the newest document takes it.
      if (!isNotFound(error)) throw error;
      this.#docs = undefined;
      this.#searched = false;
      this.#folderId = undefined;
      const docs = await this.#listDocs();
      const newest = docs.filter((d) => d.family === doc.family).at(-1);
      if (!newest || newest.docKey === doc.docKey) throw error;
      return this.#appendTo(await this.#refresh(newest), text);
    }
    // The answer holds the whole paragraph: its true length, other writers' appends included.
    const updated = { ...doc, chars: whole?.length ?? doc.chars + text.length };
    this.#remember(updated);
    return updated;
  }

  /**
   * A new document for the family, holding its note and `tokens` (and, for the index, its own creation ids);
   * read back when `last` (the next append goes to it). `taken`: how many of `tokens` it holds.
   */
  async #startDoc(family: Family, tokens: readonly string[], last: boolean): Promise<{ readonly doc: StateDoc; readonly taken: number }> {
    const folder = await this.#ensureFolder();
    const docs = await this.#listDocs();
    const seq = Math.max(0, ...docs.filter((d) => d.family === family).map((d) => d.seq)) + 1;
    const title = titleFor(family, seq);
    let made: { docKey: DocKey; nodeId: string | null };
    try {
      const created = await this.#client.createDocument(this.#workspaceId, { name: title, parentNodeId: folder });
      made = { docKey: created.docKey, nodeId: created.nodeId };
    } catch (error) {
      // Another writer started this very document a moment ago: append to it instead.
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      this.#docs = undefined;
      const found = (await this.#listDocs()).find((d) => d.title === title);
      if (!found) throw error;
      return { doc: await this.#refresh(found), taken: 0 };
    }
    const ids: StateRecord[] = made.nodeId ? [{ t: 'journal', k: made.docKey, n: made.nodeId }] : [];
    const first = family === 'state' ? [encodeRecords(ids), ...tokens] : tokens;
    const text = first.join(' ');
    await this.#client.overwrite(made.docKey, `${NOTES[family]}\n\n${text}\n`);
    const written: StateDoc = { family, seq, docKey: made.docKey, title, dataBlockId: undefined, chars: text.length };
    const doc = last ? await this.#refresh(written) : written;
    if (!last) this.#remember(doc);
    // A sources document's ids go into the index, the record every machine reads.
    if (family === 'sources' && made.nodeId) await this.#append('state', [encodeRecords([{ t: 'journal', k: made.docKey, n: made.nodeId }])]);
    return { doc, taken: tokens.length };
  }

  async #refresh(doc: StateDoc): Promise<StateDoc> {
    const { text, dataBlockId } = dataOf(await this.#client.readBlocks(doc.docKey));
    const updated = { ...doc, dataBlockId, chars: text.length };
    this.#remember(updated);
    return updated;
  }

  #remember(doc: StateDoc): void {
    if (this.#docs) this.#docs = [...this.#docs.filter((d) => d.docKey !== doc.docKey), doc].sort(bySeq);
    const cached = (this.#cache?.read() ?? []).filter((d) => d.family !== doc.family);
    this.#cache?.write([...cached, doc]);
  }
}

function docOf(node: RemoteNode): StateDoc[] {
  const match = TITLE.exec(node.title);
  if (node.type !== 'FILE' || !node.docKey || !match) return [];
  return [{ family: match[1] as Family, seq: Number(match[2]), docKey: node.docKey, title: node.title, dataBlockId: undefined, chars: 0, modifiedTime: node.modifiedTime }];
}

const bySeq = (a: StateDoc, b: StateDoc): number => (a.family === b.family ? a.seq - b.seq : a.family < b.family ? -1 : 1);

/** The tokens of a state document: every paragraph after the note, joined; appends go to the last one. */
function dataOf(blocks: readonly Block[]): { text: string; dataBlockId: BlockId | undefined } {
  const paragraphs = blocks.filter((block): block is Extract<Block, { type: 'paragraph' }> => block.type === 'paragraph').slice(1);
  return { text: paragraphs.map((p) => p.text).join(' '), dataBlockId: paragraphs.at(-1)?.id };
}

/** Records in batches whose tokens stay well under one document. */
function batches(records: readonly StateRecord[], chars = 30_000): StateRecord[][] {
  const out: StateRecord[][] = [];
  let batch: StateRecord[] = [];
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

function damagedError(docs: readonly string[]): SafetyError {
  return new SafetyError(
    'REMOTE_STATE_DAMAGED',
    `kbsync's state in the knowledge base was changed by hand or damaged: ${docs.join(', ')} (in the ${STATE_FOLDER} folder). Nothing was done: a damaged state is never trusted, and never the cause of a deletion.`,
    {
      hint:
        'On a machine that has synced this folder (its ledger intact), run `kbsync state rewrite` to write the state anew from that ledger; ' +
        `or delete the ${STATE_FOLDER} folder in the web editor, and the next run rebuilds the state by title (kbsync will not be able to delete documents whose creation ids were only in it).`,
    },
  );
}
