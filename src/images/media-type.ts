import { extname } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
};

/** A file a document may show as an image (by its extension): the daemon wakes for its changes too. */
export const isImageFile = (path: string): boolean => TYPES[extname(path).toLowerCase()] !== undefined;

/** The media type an upload command is told (storage CLIs set Content-Type from it); by extension, as web servers do. */
export const mediaTypeOf = (path: string): string => TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';

/** How many bytes of a file `sniffImageType` needs at most (an SVG's root element may follow a prolog and comments). */
export const SNIFF_BYTES = 4096;

const startsWith = (head: Buffer, bytes: readonly number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

// The signatures of the formats TYPES names, at the file's start (WebP and AVIF inside their containers).
const SIGNATURES: readonly { readonly type: string; readonly test: (head: Buffer) => boolean }[] = [
  { type: 'image/png', test: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', test: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', test: (h) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a')) },
  { type: 'image/webp', test: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8) },
  { type: 'image/avif', test: (h) => startsWith(h, ascii('ftyp'), 4) && ['avif', 'avis', 'mif1', 'msf1'].some((brand) => startsWith(h, ascii(brand), 8)) },
  { type: 'image/bmp', test: (h) => startsWith(h, ascii('BM')) && h.length >= 26 },
  { type: 'image/x-icon', test: (h) => startsWith(h, [0x00, 0x00, 0x01, 0x00]) || startsWith(h, [0x00, 0x00, 0x02, 0x00]) },
  { type: 'image/tiff', test: (h) => startsWith(h, [0x49, 0x49, 0x2a, 0x00]) || startsWith(h, [0x4d, 0x4d, 0x00, 0x2a]) },
  { type: 'image/svg+xml', test: isSvg },
];

/** SVG is text: its root element, after an optional byte-order mark, XML declaration, comments and doctype. */
function isSvg(head: Buffer): boolean {
  let text = head.subarray(0, SNIFF_BYTES).toString('utf8').replace(/^\uFEFF/, '');
  for (;;) {
    const before = text;
    text = text.replace(/^\s+/, '').replace(/^<\?xml[^>]*\?>/, '').replace(/^<!--[\s\S]*?-->/, '').replace(/^<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/i, '');
    if (text === before) break;
  }
  return /^<svg[\s>/]/.test(text);
}

/**
 * The image format a file's first bytes show (up to SNIFF_BYTES of them), or undefined when they show none.
 * A file is published as an image only when its name says image and its bytes do too: a `.png` that is
 * really a configuration file, a key or a ledger is never handed to images.upload.
 */
export const sniffImageType = (head: Buffer): string | undefined => SIGNATURES.find((signature) => signature.test(head))?.type;
