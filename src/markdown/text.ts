/**
 * Plain text as the service holds it, and how to write it back as Markdown that reads as the same text.
 * The service flattens formatting, so its text is literal: every character that Markdown would read
 * as syntax is escaped, otherwise a title like `*` or `# x` would come back changed (or as a list).
 */

/** Whitespace-insensitive form used to compare texts from the two sides (reads differ in spacing). */
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Characters that are syntax wherever they stand in inline content. `|` only matters in tables. */
const INLINE_SPECIAL = /[\\`*_[\]<~&]/g;
const INLINE_SPECIAL_IN_CELL = /[\\`*_[\]<~&|]/g;

/**
 * Characters that start a block when they open a line: heading, quote, list, thematic break, setext
 * underline (fence characters are escaped wherever they stand).
 */
const LINE_START_SPECIAL = /^[#>\-+*=]/;
const ORDERED_MARKER = /^(\d{1,9})([.)])/;

/**
 * GFM turns `www.` and `http(s)://` runs into links whose text keeps backslashes verbatim, so an escape
 * inside such a run would show. Where one would, the run is kept from becoming a link instead.
 */
const AUTOLINK = /(^|[^a-z])((?:https?:\/\/|www\.)[^\s<]*)/gi;
function neutraliseAutolink(match: string, before: string, run: string): string {
  if (!run.includes('\\')) return match;
  return before + run.replace(/(^|[^a-z])(www)\./gi, '$1$2\\.').replace(/(^|[^a-z])(https?):(?=\/\/)/gi, '$1$2\\:');
}

type EscapeContext = 'block' | 'heading' | 'cell';

/** Escape one line of text so that Markdown reads it back literally. */
function escapeLine(line: string, context: EscapeContext): string {
  const trimmed = line.trim();
  if (context === 'cell') return trimmed.replace(INLINE_SPECIAL_IN_CELL, '\\$&').replace(AUTOLINK, neutraliseAutolink);
  // A line of only `-`, `=` or delimiter characters would turn the line above into a heading or a table.
  if (/^[-=:| \t]+$/.test(trimmed) && /[-=]/.test(trimmed)) return trimmed.replace(/[-=:|]/g, '\\$&');
  let out = trimmed.replace(INLINE_SPECIAL, '\\$&');
  if (LINE_START_SPECIAL.test(out)) out = `\\${out}`;
  else out = out.replace(ORDERED_MARKER, '$1\\$2');
  out = out.replace(AUTOLINK, neutraliseAutolink);
  // A run of `#` at the end of a heading is read as its closing sequence and dropped.
  if (context === 'heading') out = out.replace(/(^|[ \t])(#+)$/, (_m, space: string, hashes: string) => `${space}\\${hashes}`);
  return out;
}

/**
 * Markdown for a text from the service. Blank lines would split a block in two, so they collapse to one
 * line break; headings and table cells are one line.
 */
export function escapeText(text: string, context: EscapeContext): string {
  const lines = text
    .normalize('NFC')
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (context !== 'block') return escapeLine(lines.join(' '), context);
  return lines.map((line) => escapeLine(line, context)).join('\n');
}

/**
 * Text written in place of a piece of a line (a wiki link lowered to the words it shows): reads back as
 * exactly these characters (no normalising: the reading it must match is of the file as it is), in a
 * paragraph or a table cell, and at a line's start too (`atLineStart`: not a heading, quote or list).
 */
export function escapeInPlace(text: string, atLineStart: boolean): string {
  const out = text.replace(INLINE_SPECIAL_IN_CELL, '\\$&');
  if (!atLineStart) return out;
  return LINE_START_SPECIAL.test(out) ? `\\${out}` : out.replace(ORDERED_MARKER, '$1\\$2');
}

/**
 * A piece of text written into the middle of a line of Markdown (an edit mapped into a paragraph's own
 * source): its inline syntax characters escaped, its spacing kept exactly. Whoever writes it checks that
 * the result reads back as intended (a fragment can still combine with its surroundings).
 */
export function escapeInline(text: string): string {
  return text.normalize('NFC').replace(INLINE_SPECIAL, '\\$&');
}

const WORD_BREAK = /[\s\p{P}]+/u;

/** Similarity of two texts in [0, 1] by shared words, cheap enough for alignment scoring. */
export function textSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const wordsA = a.split(WORD_BREAK).filter(Boolean);
  const wordsB = new Set(b.split(WORD_BREAK).filter(Boolean));
  if (wordsA.length === 0 || wordsB.size === 0) return 0;
  let shared = 0;
  for (const word of wordsA) if (wordsB.has(word)) shared++;
  return shared / Math.max(wordsA.length, wordsB.size);
}
