import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { InputError } from '../errors.js';

/** The service keeps at most this many characters of a document body. */
const MAX_BODY_CHARS = 50_000;
/** A file larger than this on disk is refused before it is read: it cannot be a syncable body. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export type LineEnding = 'lf' | 'crlf';

export type TextFile = {
  /** The content with the BOM removed, line endings exactly as written. */
  readonly text: string;
  /** The file started with a UTF-8 byte order mark: write it back the same way. */
  readonly bom: boolean;
  /** `crlf`: every line ends so, and a rewrite keeps it so; `lf` otherwise (mixed endings are kept as they are). */
  readonly eol: LineEnding;
};

type ReadTextOptions = {
  readonly maxBytes?: number;
  /** Character limit of the whole text (UTF-16 units, as the service counts). Default MAX_BODY_CHARS. */
  readonly maxChars?: number;
  /** The path shown in errors (the relative path); defaults to the absolute one. */
  readonly displayPath?: string;
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads a Markdown file as text, refusing what cannot be a document body (binary, too large). */
export async function readTextFile(absPath: string, options: ReadTextOptions = {}): Promise<TextFile> {
  const shown = options.displayPath ?? absPath;
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  const handle = await openRegularFile(absPath, shown);
  let bytes: Buffer;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(shown);
    const size = stat.size;
    if (size > maxBytes) throw tooLarge(shown, `${size} bytes on disk (the limit is ${maxBytes})`);
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  // The file may have grown between stat and read.
  if (bytes.length > maxBytes) throw tooLarge(shown, `${bytes.length} bytes on disk (the limit is ${maxBytes})`);
  return decodeText(bytes, { ...options, displayPath: shown });
}

/** The checks of readTextFile on bytes already in memory. */
export function decodeText(bytes: Uint8Array, options: ReadTextOptions = {}): TextFile {
  const shown = options.displayPath ?? 'the file';
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    throw new InputError('FILE_HAS_NUL', `${shown} holds a NUL byte at offset ${nul}, so it is not a text file.`, {
      hint: 'Remove the binary content, or exclude the file (exclude in sync.config.json or .kbsyncignore).',
    });
  }
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch (error) {
    throw new InputError('FILE_NOT_UTF8', `${shown} is not valid UTF-8 text.`, {
      hint: 'Convert it to UTF-8 (e.g. `iconv -f latin1 -t utf-8`), or exclude it.',
      cause: error,
    });
  }
  const bom = decoded.startsWith('\uFEFF');
  const withBomRemoved = bom ? decoded.slice(1) : decoded;
  const crlf = countOf(withBomRemoved, '\r\n');
  const lf = countOf(withBomRemoved, '\n') - crlf;
  // The text is kept exactly as written, line endings included: a file's CRLF or mixed endings travel in
  // the kept source to other machines, and a merge keeps them wherever it keeps the text.
  const text = withBomRemoved;
  const maxChars = options.maxChars ?? MAX_BODY_CHARS;
  if (text.length > maxChars) throw tooLarge(shown, `${text.length} characters (the service keeps at most ${maxChars})`);
  return { text, bom, eol: crlf > 0 && lf === 0 ? 'crlf' : 'lf' };
}

/** Text back to the bytes of a file with the given line endings and BOM (the inverse of decodeText). */
export function encodeText(text: string, format: { readonly bom?: boolean; readonly eol?: LineEnding } = {}): Buffer {
  // A file written with CRLF throughout stays so: lines a merge wrote fresh (from the service's reading) get CRLF too.
  const lines = format.eol === 'crlf' ? text.replace(/(?<!\r)\n/g, '\r\n') : text;
  return Buffer.from(format.bom ? `\uFEFF${lines}` : lines, 'utf8');
}

// O_NOFOLLOW: never read through a symlink; O_NONBLOCK: a FIFO named *.md must not hang the run.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

async function openRegularFile(absPath: string, shown: string): Promise<FileHandle> {
  try {
    return await fsp.open(absPath, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw notRegular(shown);
    throw error;
  }
}

function notRegular(shown: string): InputError {
  return new InputError('FILE_NOT_REGULAR', `${shown} is not a regular file (a symlink, pipe or device), so kbsync does not read it.`, {
    hint: 'Replace it with a plain file, or exclude it.',
  });
}

function tooLarge(shown: string, size: string): InputError {
  return new InputError('FILE_TOO_LARGE', `${shown} is too large to sync: ${size}.`, {
    hint: 'Split it into smaller documents, or exclude it.',
  });
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}
