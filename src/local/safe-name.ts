import { isAlwaysIgnoredDirName, isConflictCopyName, isTransientFileName } from './names.js';

/** Cap of a name's UTF-8 bytes (before `.md`): far below every file system's 255, with room for ` (n)`. */
export const MAX_NAME_BYTES = 120;

type SafeNameOptions = {
  /** Names already taken in the folder (file names with their extension, folder names as is). */
  readonly siblings?: Iterable<string>;
  /** Compare names ignoring case, as macOS and Windows file systems do. Default true. */
  readonly caseInsensitiveFs?: boolean;
  /** Appended to the result by the caller (e.g. `.md`): taken into account for collisions. */
  readonly extension?: string;
  readonly maxBytes?: number;
};

// Windows refuses these as a name's part before the first dot, in any case (also COM¹ etc.).
const RESERVED = new Set([
  'CON', 'PRN', 'AUX', 'NUL', 'CONIN$', 'CONOUT$',
  ...[...'0123456789¹²³'].flatMap((digit) => [`COM${digit}`, `LPT${digit}`]),
]);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const WHITESPACE_CONTROL = /[\t\n\v\f\r]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const OTHER_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// Invisible and bidirectional formatting characters: they make names that look like other names.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufffe\uffff]/g;
const SEPARATOR = /[/\\]/g;
const WINDOWS_FORBIDDEN = /[<>:"|?*]/g;
const EDGE_DOTS_SPACES = /^[\s.]+|[\s.]+$/g;

/**
 * Turns a remote title into ONE safe path component (design rule 6): NFC, no separators, control
 * or invisible characters, no leading/trailing dots or spaces, no Windows reserved name, at most
 * `maxBytes` UTF-8 bytes, never a name the scanner would ignore, and distinct from `siblings`
 * (` (2)`, ` (3)`... in order, so the same inputs always give the same name).
 */
export function safeName(title: string, options: SafeNameOptions = {}): string {
  const maxBytes = options.maxBytes ?? MAX_NAME_BYTES;
  const extension = options.extension ?? '';
  const base = sanitize(String(title), maxBytes, extension);
  const keyOf = (name: string): string => {
    const nfc = name.normalize('NFC');
    return options.caseInsensitiveFs === false ? nfc : nfc.toLowerCase();
  };
  const taken = new Set<string>();
  for (const sibling of options.siblings ?? []) taken.add(keyOf(sibling));
  let candidate = base;
  for (let n = 2; taken.has(keyOf(candidate + extension)); n += 1) {
    const suffix = ` (${n})`;
    candidate = fitNfc(base, maxBytes - byteLength(suffix)) + suffix;
  }
  return candidate;
}

/** The file name (`<safe name>.md`) for a document title among a folder's existing names. */
export function fileNameForTitle(title: string, siblings: Iterable<string> = [], options: Omit<SafeNameOptions, 'siblings' | 'extension'> = {}): string {
  return `${safeName(title, { ...options, siblings, extension: '.md' })}.md`;
}

function sanitize(title: string, maxBytes: number, extension: string): string {
  const cleaned = title
    .replace(LONE_SURROGATE, '_')
    .replace(WHITESPACE_CONTROL, ' ')
    .replace(OTHER_CONTROL, '')
    .replace(INVISIBLE, '')
    .replace(SEPARATOR, '-')
    .replace(WINDOWS_FORBIDDEN, '_')
    .replace(/\s+/g, ' ');
  // Two bytes of headroom for the fixes below, which each add at most one `_`.
  let name = fitNfc(cleaned, maxBytes - 2);
  if (name === '') name = 'untitled';
  if (RESERVED.has((name.split('.')[0] ?? '').trimEnd().toUpperCase())) name = `_${name}`;
  return avoidScannerRules(name, extension);
}

/** NFC, no dots or spaces at either end, within `maxBytes`: re-checked after each cut, since a cut can change all three. */
function fitNfc(text: string, maxBytes: number): string {
  const nfc = text.normalize('NFC');
  for (let limit = maxBytes; ; limit -= 1) {
    const cut = trimEdges(truncateUtf8(nfc, limit)).normalize('NFC');
    if (byteLength(cut) <= maxBytes && trimEdges(cut) === cut) return cut;
  }
}

/** A name the scanner would skip (temp file, node_modules, conflict copy) would be lost after a pull. */
function avoidScannerRules(name: string, extension: string): string {
  const full = name + extension;
  if (isConflictCopyName(full)) return name.replace(/conflict/gi, '$&_');
  if (isTransientFileName(full) || isAlwaysIgnoredDirName(full)) {
    return isTransientFileName(`_${full}`) ? `${name}_` : `_${name}`;
  }
  return name;
}

function trimEdges(name: string): string {
  return name.replace(EDGE_DOTS_SPACES, '');
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, cut between code points. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += byteLength(char);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}
