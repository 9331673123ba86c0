import { createHash } from 'node:crypto';
import type { KbClient } from '../api/index.js';
import { decodeTokens, joinSource, type SourceChunk } from './codec.js';
import type { StateDoc } from './documents.js';
import type { StateJunk } from './junk.js';
import { MAX_DOCS_READ } from './limits.js';
import { readData } from './read.js';
import type { SharedState } from './state.js';
import type { StateKey } from './token.js';

/** A source to keep: the file's text under its sha256. */
export type Source = { readonly hash: string; readonly text: string };

/** The state as read, for choosing which sources documents to read. */
type SourcesContext = { readonly state: SharedState; readonly docs: readonly StateDoc[]; readonly junk: StateJunk };

/**
 * The files' texts this run knows from the sources documents (read only when a text is needed) and from its
 * own keeping. Each sources document is read at most once per run: concurrent asks share one read.
 */
export class KeptSources {
  readonly #client: KbClient;
  readonly #key: StateKey | undefined;
  readonly #chunks = new Map<string, SourceChunk[]>();
  /**
   * The texts this run kept, as the strings it had: the very strings its scan read, so keeping them costs a
   * map entry, where a deflated chunk (its object, Buffer and bytes) took about 0.7 KB a text, 7 MB through a
   * first push of 10,000 short notes, all of it held from the first write on.
   */
  readonly #kept = new Map<string, string>();
  readonly #read = new Map<string, Promise<void>>();

  constructor(deps: { readonly client: KbClient; readonly key: StateKey | undefined }) {
    this.#client = deps.client;
    this.#key = deps.key;
  }

  /** Known to this run (read, or kept by it). */
  has(hash: string): boolean {
    return this.#kept.has(hash) || this.#chunks.has(hash);
  }

  /** A text this run keeps: known without reading it back. */
  keep(source: Source): void {
    this.#kept.set(source.hash, source.text);
  }

  /**
   * The text of each hash asked for (those found). Only the sources documents the index names for those
   * hashes are read; documents it names for none (written before the index named them) are read when a
   * hash is not found otherwise. `context` is asked only when something must be read.
   */
  async texts(hashes: ReadonlySet<string>, context: () => Promise<SourcesContext>): Promise<Map<string, string>> {
    const wanted = [...hashes].filter((hash) => !this.has(hash));
    if (wanted.length > 0) {
      const { state, docs, junk } = await context();
      const all = docs.filter((doc) => doc.family === 'sources');
      const named = new Set(wanted.flatMap((hash) => state.sourceDocs.get(hash) ?? []));
      const mapped = new Set([...state.sourceDocs.values()].flat());
      const missing = wanted.some((hash) => !state.sourceDocs.has(hash));
      const toRead = all.filter((doc) => named.has(doc.docKey) || (missing && !mapped.has(doc.docKey))).slice(0, MAX_DOCS_READ);
      await Promise.all(toRead.map((doc) => this.#readOnce(doc, junk)));
    }
    const out = new Map<string, string>();
    for (const hash of hashes) {
      const text = this.#keptText(hash) ?? joinSource(this.#chunks.get(hash) ?? []);
      if (text !== undefined) out.set(hash, text);
    }
    return out;
  }

  /** A kept text, when it is the text its hash names (as a source read back must be: joinSource). */
  #keptText(hash: string): string | undefined {
    const text = this.#kept.get(hash);
    return text !== undefined && createHash('sha256').update(text).digest('hex') === hash ? text : undefined;
  }

  #readOnce(doc: StateDoc, junk: StateJunk): Promise<void> {
    let reading = this.#read.get(doc.docKey);
    if (!reading) {
      reading = this.#decode(doc, junk);
      this.#read.set(doc.docKey, reading);
    }
    return reading;
  }

  async #decode(doc: StateDoc, junk: StateJunk): Promise<void> {
    const decoded = decodeTokens((await readData(this.#client, doc, junk)).text, this.#key);
    junk.unverifiedTokens += decoded.unverified;
    junk.damagedTokens += decoded.damaged;
    if (decoded.damaged + decoded.unverified > 0) junk.docs.push(doc.title);
    for (const chunk of decoded.chunks) this.#chunks.set(chunk.h, [...(this.#chunks.get(chunk.h) ?? []), chunk]);
  }
}
