import { createHash } from 'node:crypto';
import type * as Zlib from 'node:zlib';
import { checkRecord, isId, type StateRecord } from './records.js';
import { frame, unframe, type StateKey, type Trust } from './token.js';

export type { StateRecord } from './records.js';

/** zlib, loaded on first use: a run that reads or writes no state (a no-op push) does not pay for it. */
const zlib = (): typeof Zlib => process.getBuiltinModule('node:zlib');

/**
 * Raw deflate into a buffer about the size of its input, not zlib's 16 KB: a first push deflates each file's
 * source twice (sent, kept) and a batch of records, and 16 KB apiece for 100-byte notes is what a run's
 * garbage mostly was (malloc'd memory, which stays the process's once fragmented). A larger output just takes
 * more chunks.
 */
const deflated = (bytes: Buffer): Buffer => zlib().deflateRawSync(bytes, { chunkSize: Math.min(16 * 1024, Math.max(64, bytes.length + 64)) });

/**
 * What the tokens of kbsync's state hold (see token.ts for how a token is framed and signed). An index
 * token (`k`) holds a deflated batch of records with what orders them: the writer's id and its hybrid
 * logical clock (see clock.ts), so the fold gives the same state however writers, compactions and crashes
 * interleave their tokens. A sources token (`s`) holds one chunk of a file's deflated source.
 *
 * Everything read is bounded: a token inflates to at most a megabyte, a source to at most a megabyte and
 * must hash to the hash it is filed under, and a record that fails its check (records.ts) is dropped.
 */

/** Who wrote a batch, and when by its clock: records are ordered by (clock, writer, place in the batch). */
type Stamp = { readonly w: string; readonly c: number };

/** A record with its place in the order of all records. */
export type Stamped = { readonly record: StateRecord; readonly c: number; readonly w: string; readonly i: number };

/** One piece of one file's source (a file's deflated text may be split over several tokens). */
export type SourceChunk = { readonly h: string; readonly i: number; readonly of: number; readonly data: Buffer };

const INDEX = 'k';
const SOURCE = 's';
/** Most bytes one index token or one file's source may inflate to: a "zip bomb" costs no more. */
const MAX_INFLATED_BYTES = 1024 * 1024;
const MAX_RECORDS_PER_TOKEN = 20_000;
const MAX_CHUNKS = 64;
/** Token places per document in the order of legacy tokens (a document holds far fewer). */
const LEGACY_PLACES = 100_000;

/** A batch of index records as one token. `@` on a record (a compaction's copy) keeps the stamp it was first written with. */
export function encodeRecords(records: readonly (StateRecord & { readonly '@'?: readonly [number, string, number] })[], stamp: Stamp, key?: StateKey): string {
  return frame(INDEX, deflated(Buffer.from(JSON.stringify({ w: stamp.w, c: stamp.c, r: records }), 'utf8')), key);
}

/** A file's source as tokens of at most `chunkBytes` compressed bytes each. */
export function encodeSource(hash: string, text: string, key?: StateKey, chunkBytes = 24_000): string[] {
  const packed = deflated(Buffer.from(text, 'utf8'));
  const count = Math.max(1, Math.ceil(packed.length / chunkBytes));
  return Array.from({ length: count }, (_, i) => {
    const header = Buffer.from(`${JSON.stringify({ h: hash, i, of: count })}\n`, 'utf8');
    return frame(SOURCE, Buffer.concat([header, packed.subarray(i * chunkBytes, (i + 1) * chunkBytes)]), key);
  });
}

/**
 * An index token, read. `workspace`: signed for the workspace alone (before tokens were bound to their synced
 * folder): used only while the folder's state has not been rewritten bound (read.ts).
 */
export type IndexToken = { readonly token: string; readonly records: readonly Stamped[]; readonly dropped: number; readonly workspace?: true };

type Decoded = {
  readonly index: IndexToken[];
  readonly chunks: SourceChunk[];
  /** Whole tokens this reader cannot trust: unsigned or signed with another key (with a key); they are not used. */
  readonly unverified: number;
  /** Tokens that are not whole, not kbsync's, or do not read: someone else's text. */
  readonly damaged: number;
  /** Records that failed their check (records.ts), in tokens otherwise read. */
  readonly dropped: number;
};

/**
 * Reads the tokens of a state document's text (its paragraphs joined by spaces). With a key, only the
 * tokens it verifies are used; without one, every whole token is (and nothing read is authenticated).
 * `order` places legacy tokens, which carry no clock, in the order they sit.
 */
export function decodeTokens(text: string, key: StateKey | undefined, order = 0): Decoded {
  const out = { index: [] as IndexToken[], chunks: [] as SourceChunk[], unverified: 0, damaged: 0, dropped: 0 };
  let position = 0;
  for (const raw of text.split(/\s+/)) {
    if (raw === '') continue;
    position += 1;
    const framed = unframe(raw, key);
    if (framed.trust === 'damaged') {
      out.damaged += 1;
      continue;
    }
    if (!usable(framed.trust, key)) {
      out.unverified += 1;
      continue;
    }
    try {
      if (framed.kind === INDEX) {
        const token = indexToken(raw, zlib().inflateRawSync(framed.bytes, { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8'), order * LEGACY_PLACES + position);
        out.index.push(framed.trust === 'workspace' ? { ...token, workspace: true } : token);
        out.dropped += token.dropped;
        // A source is used whatever the binding: it must hash to the name a verified record gives it.
      } else if (framed.kind === SOURCE) out.chunks.push(parseChunk(framed.bytes));
      else out.damaged += 1;
    } catch {
      out.damaged += 1;
    }
  }
  return out;
}

// Without a key nothing can be checked: every whole token is read (and the state counts as unauthenticated).
const usable = (trust: Trust, key: StateKey | undefined): boolean => (key ? trust === 'verified' || trust === 'workspace' : true);

/** A batch: `{ w, c, r }` (or, written by kbsync before records carried a clock, a bare list ordered by `legacy`). */
function indexToken(token: string, json: string, legacy: number): IndexToken {
  const value: unknown = JSON.parse(json);
  const batch = Array.isArray(value) ? { w: '', c: 0, r: value } : (value as { w?: unknown; c?: unknown; r?: unknown });
  if (!Array.isArray(batch.r) || batch.r.length > MAX_RECORDS_PER_TOKEN || !isClock(batch.c) || !(batch.w === '' || isId(batch.w))) throw new Error('not a batch of state records');
  const w = batch.w as string;
  const c = batch.c as number;
  const records: Stamped[] = [];
  let dropped = 0;
  for (const [i, raw] of batch.r.entries()) {
    const { '@': at, ...rest } = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const record = checkRecord(rest);
    const stamp = at === undefined ? { c, w, i: c === 0 ? legacy * MAX_RECORDS_PER_TOKEN + i : i } : stampOf(at);
    if (!record || !stamp) dropped += 1;
    else records.push({ record, ...stamp });
  }
  return { token, records, dropped };
}

const isClock = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function stampOf(value: unknown): { c: number; w: string; i: number } | undefined {
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [c, w, i] = value as unknown[];
  return isClock(c) && (w === '' || isId(w)) && isClock(i) ? { c, w: w as string, i } : undefined;
}

function parseChunk(bytes: Buffer): SourceChunk {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > 200) throw new Error('not a source chunk');
  const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as { h?: unknown; i?: unknown; of?: unknown };
  const { h, i, of } = header;
  if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h) || !Number.isInteger(i) || !Number.isInteger(of)) throw new Error('not a source chunk');
  if ((of as number) < 1 || (of as number) > MAX_CHUNKS || (i as number) < 0 || (i as number) >= (of as number)) throw new Error('not a source chunk');
  return { h, i: i as number, of: of as number, data: bytes.subarray(newline + 1) };
}

/**
 * A file's source from its chunks, or undefined while a chunk is missing or when the chunks do not make
 * the text their hash names (a forged or mixed-up source is never used). Several chunks for one place
 * (a copy, or someone else's forged one) are each tried, within a bound: only the genuine ones hash right.
 */
export function joinSource(chunks: readonly SourceChunk[]): string | undefined {
  const first = chunks[0];
  if (first === undefined) return undefined;
  const hash = first.h;
  for (const of of new Set(chunks.map((chunk) => chunk.of))) {
    const places: Buffer[][] = Array.from({ length: of }, () => []);
    for (const chunk of chunks) {
      const place = places[chunk.i];
      if (chunk.of === of && chunk.h === hash && place && !place.some((data) => data.equals(chunk.data))) place.push(chunk.data);
    }
    if (places.some((place) => place.length === 0)) continue;
    for (const parts of assemblies(places, MAX_ASSEMBLIES)) {
      const text = inflated(Buffer.concat(parts));
      if (text !== undefined && createHash('sha256').update(text).digest('hex') === hash) return text;
    }
  }
  return undefined;
}

/** Assemblies of a source tried before it counts as not kept (each costs an inflate of up to a megabyte). */
const MAX_ASSEMBLIES = 8;

/** One part from each place, in order: the first choices first, at most `max` of them. */
function* assemblies(places: readonly (readonly Buffer[])[], max: number): Generator<Buffer[]> {
  let made = 0;
  const choose = function* (at: number, chosen: Buffer[]): Generator<Buffer[]> {
    if (at === places.length) {
      made += 1;
      yield chosen;
      return;
    }
    for (const part of places[at] ?? []) {
      if (made >= max) return;
      yield* choose(at + 1, [...chosen, part]);
    }
  };
  yield* choose(0, []);
}

function inflated(bytes: Buffer): string | undefined {
  try {
    return zlib().inflateRawSync(bytes, { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8');
  } catch {
    return undefined;
  }
}
