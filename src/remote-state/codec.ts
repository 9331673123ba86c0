import { createHash } from 'node:crypto';
import type * as Zlib from 'node:zlib';

/** zlib, loaded on first use: a run that reads or writes no state (a no-op push) does not pay for it. */
const zlib = (): typeof Zlib => process.getBuiltinModule('node:zlib');

/**
 * How kbsync's state is written into documents of the knowledge base so that it reads back exactly: the
 * service turns Markdown into blocks and gives paragraphs back as plain text, so a record must be plain
 * text that Markdown reads as itself. A token is one letter, base64 (letters, digits, `+`, `/`; no `=`),
 * a dot and 12 hex characters of checksum: no emphasis, link, escape or line break can form from those, in
 * the middle of a one-line paragraph. Tokens are separated by single spaces, so appends can add more.
 *
 * Each token holds a deflated JSON batch of records (index) or one chunk of a file's source (sources),
 * and its checksum is verified on read: a token altered by hand is found, never trusted.
 */

/** One synced file, as the last run that synced it saw it. */
export type DocRecord = {
  readonly t: 'doc';
  /** The file's path, relative to the synced root. */
  readonly p: string;
  /** The document's docKey (also its node id in the tree). */
  readonly k: string;
  /** The creation nodeId, which alone deletes the document and manages its members; null when unknown. */
  readonly n: string | null;
  /** sha256 of the file text last synced (the source kept in the sources documents). */
  readonly h: string;
  /** What the document's blocks said right after that sync (kbsync's blocks hash). */
  readonly rb: string;
  /** The document's modifiedTime as last listed ('' when not listed since kbsync wrote it). */
  readonly m: string;
  /** 1: `m`'s minute was not over when it was taken, so an edit later in that minute may not show in it: read before trusting it. */
  readonly r?: 1;
  /** How the document came to be linked (see the ledger's origin). */
  readonly o: 'created' | 'create-answer-lost' | 'linked' | 'pulled';
  /** Members kbsync applied from front matter. */
  readonly mem?: readonly { readonly userId: string; readonly role: string }[];
  /** The images the document was last sent with (path or diagram language, content key, URL): a changed image is sent again. */
  readonly im?: readonly SharedImage[];
  /**
   * 1: the document holds more than this source says (a colleague's edit taken in from the service's plain
   * reading): another machine must not take the source for the document's exact Markdown.
   */
  readonly l?: 1;
  /** The service's clock (ms) when that writer agreed on this version: orders versions of one file, whatever order they are published in. */
  readonly a?: number;
};

/** One image of a document, as every machine may check it (no stat: that is one machine's). */
export type SharedImage = { readonly p: string; readonly h: string; readonly u: string; readonly d?: 1 };

/** An image uploaded once, for every machine: its content key and its URL. */
export type ImageRecord = { readonly t: 'img'; readonly k: string; readonly u: string };

/** A file's record ends: deleted, or moved to another path (whose own record follows). */
export type GoneRecord = { readonly t: 'gone'; readonly p: string; readonly k: string };

/** A folder kbsync created (or found) for a local folder. */
export type FolderRecord = { readonly t: 'dir'; readonly p: string; readonly tn: string; readonly n: string | null };

/** A state document's own creation ids: any machine may then delete it when the state is compacted. */
export type JournalRecord = { readonly t: 'journal'; readonly k: string; readonly n: string };

/** Documents of a family numbered below `below` are superseded (a rewrite of the state): never read again. */
export type ResetRecord = { readonly t: 'reset'; readonly family: 'state' | 'sources'; readonly below: number };

export type StateRecord = DocRecord | GoneRecord | FolderRecord | JournalRecord | ResetRecord | ImageRecord;

/** One piece of one file's source (a file's deflated text may be split over several tokens). */
export type SourceChunk = { readonly h: string; readonly i: number; readonly of: number; readonly data: Buffer };

const INDEX = 'k';
const SOURCE = 's';
const CHECK_CHARS = 12;

const base64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');
const check = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, CHECK_CHARS);

function token(kind: string, bytes: Buffer): string {
  const body = `${kind}${base64(bytes)}`;
  return `${body}.${check(body)}`;
}

/** A batch of index records as one token. */
export function encodeRecords(records: readonly StateRecord[]): string {
  return token(INDEX, zlib().deflateRawSync(Buffer.from(JSON.stringify(records), 'utf8')));
}

/** A file's source as tokens of at most `chunkBytes` compressed bytes each. */
export function encodeSource(hash: string, text: string, chunkBytes = 24_000): string[] {
  const packed = zlib().deflateRawSync(Buffer.from(text, 'utf8'));
  const count = Math.max(1, Math.ceil(packed.length / chunkBytes));
  return Array.from({ length: count }, (_, i) => {
    const header = Buffer.from(`${JSON.stringify({ h: hash, i, of: count })}\n`, 'utf8');
    return token(SOURCE, Buffer.concat([header, packed.subarray(i * chunkBytes, (i + 1) * chunkBytes)]));
  });
}

export type Decoded = {
  readonly records: StateRecord[];
  readonly chunks: SourceChunk[];
  /** Tokens that failed their checksum or could not be read: the text was changed by someone else. */
  readonly damaged: string[];
};

/** Reads the tokens of a state document's text (its paragraphs joined by spaces). */
export function decodeTokens(text: string): Decoded {
  const out: Decoded = { records: [], chunks: [], damaged: [] };
  for (const raw of text.split(/\s+/)) {
    if (raw === '') continue;
    const dot = raw.lastIndexOf('.');
    const body = dot > 0 ? raw.slice(0, dot) : raw;
    if (dot < 0 || raw.slice(dot + 1) !== check(body)) {
      out.damaged.push(raw);
      continue;
    }
    try {
      const bytes = Buffer.from(body.slice(1), 'base64');
      if (body[0] === INDEX) out.records.push(...parseRecords(zlib().inflateRawSync(bytes).toString('utf8')));
      else if (body[0] === SOURCE) out.chunks.push(parseChunk(bytes));
      else out.damaged.push(raw);
    } catch {
      out.damaged.push(raw);
    }
  }
  return out;
}

function parseRecords(json: string): StateRecord[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value) || !value.every(isRecord)) throw new Error('not a list of state records');
  return value;
}

function parseChunk(bytes: Buffer): SourceChunk {
  const newline = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as { h?: unknown; i?: unknown; of?: unknown };
  if (typeof header.h !== 'string' || !Number.isInteger(header.i) || !Number.isInteger(header.of)) throw new Error('not a source chunk');
  return { h: header.h, i: header.i as number, of: header.of as number, data: bytes.subarray(newline + 1) };
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNullableString = (value: unknown): boolean => value === null || isString(value);
const ORIGINS = new Set(['created', 'create-answer-lost', 'linked', 'pulled']);

function isRecord(value: unknown): value is StateRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  switch (r['t']) {
    case 'doc':
      return (
        isString(r['p']) && isString(r['k']) && isNullableString(r['n']) && isString(r['h']) && isString(r['rb']) && isString(r['m']) && ORIGINS.has(String(r['o'])) && (r['im'] === undefined || isImageList(r['im']))
      );
    case 'img':
      return isString(r['k']) && isString(r['u']);
    case 'gone':
      return isString(r['p']) && isString(r['k']);
    case 'dir':
      return isString(r['p']) && isString(r['tn']) && isNullableString(r['n']);
    case 'journal':
      return isString(r['k']) && isString(r['n']);
    case 'reset':
      return (r['family'] === 'state' || r['family'] === 'sources') && Number.isInteger(r['below']);
    default:
      return false;
  }
}

const isImageList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((image: unknown) => typeof image === 'object' && image !== null && isString((image as SharedImage).p) && isString((image as SharedImage).h) && isString((image as SharedImage).u));

/** A file's source from its chunks, or undefined while a chunk is missing. */
export function joinSource(chunks: readonly SourceChunk[]): string | undefined {
  const of = chunks[0]?.of;
  if (of === undefined) return undefined;
  const parts: (Buffer | undefined)[] = Array.from({ length: of });
  for (const chunk of chunks) if (chunk.of === of) parts[chunk.i] = chunk.data;
  if (parts.some((part) => part === undefined)) return undefined;
  return zlib().inflateRawSync(Buffer.concat(parts as Buffer[])).toString('utf8');
}
