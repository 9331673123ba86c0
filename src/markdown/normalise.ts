import { InputError } from '../errors.js';
import { textMayBeMissing } from '../model/block-kinds.js';
import type { Block, BlockType } from '../model/blocks.js';
import { outline } from './outline.js';
import { normaliseText } from './text.js';

/** What a block says, apart from ids and positions: the common ground of outline nodes and read blocks. */
export type Content = {
  readonly type: BlockType;
  readonly text: string;
  readonly level?: number;
  readonly cols?: number;
  readonly rows?: number;
  readonly cells?: readonly (readonly string[])[];
};

export function contentOfBlock(block: Block): Content {
  switch (block.type) {
    case 'heading':
      return { type: block.type, text: block.text, level: block.level };
    case 'unorderedList':
    case 'orderedList':
      return { type: block.type, text: block.text, level: block.level };
    case 'table':
      return { type: block.type, text: '', cols: block.cols, rows: block.rows, ...(block.cells ? { cells: block.cells } : {}) };
    case 'unknown':
      return { type: block.type, text: '' };
    case 'paragraph':
    case 'blockquote':
      return { type: block.type, text: block.text };
  }
}

/**
 * A comparison key. List levels are left out: services count them from 0 or from 1, and a level alone
 * changing is indentation, not content. Table cells are left out because reads may omit them.
 */
export function contentKey(content: Content): string {
  const level = content.type === 'heading' ? String(content.level ?? 1) : '';
  const size = content.type === 'table' ? `${content.cols ?? 0}x${content.rows ?? 0}` : '';
  return `${content.type}|${level}|${size}|${normaliseText(content.text)}`;
}


const sameCells = (a: Content, b: Content): boolean =>
  !a.cells || !b.cells || JSON.stringify(a.cells.map((row) => row.map(normaliseText))) === JSON.stringify(b.cells.map((row) => row.map(normaliseText)));

/**
 * Do two contents say the same thing? Tolerant of what reads lose: an empty list or quote text (some
 * reads omit it) matches any text, and missing table cells match any cells of the same size.
 */
export function sameContent(a: Content, b: Content): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'table') return a.cols === b.cols && a.rows === b.rows && sameCells(a, b);
  if (a.type === 'heading' && a.level !== b.level) return false;
  const textA = normaliseText(a.text);
  const textB = normaliseText(b.text);
  return textA === textB || (textMayBeMissing(a.type) && (textA === '' || textB === ''));
}

/** Strictly the same reading (no tolerance for missing text): a local node already saying what a block says. */
export function sameReading(a: Content, b: Content): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'table') return a.cols === b.cols && a.rows === b.rows && sameCells(a, b);
  return normaliseText(a.text) === normaliseText(b.text) && (a.type !== 'heading' || a.level === b.level);
}

/**
 * Did a block change between two reads? Like `sameContent`, but an empty list or quote text only
 * counts as "not read" on the later side: text appearing where a read had none is a change to apply.
 */
export function changedBetweenReads(before: Content, after: Content): boolean {
  if (!sameContent(before, after)) return true;
  return textMayBeMissing(after.type) && normaliseText(after.text) !== '' && normaliseText(before.text) !== normaliseText(after.text);
}

/**
 * Markdown reduced to what the service keeps of it: two bodies with the same result read back as the
 * same blocks, so a change that makes them equal on both sides is the same change, not a conflict.
 */
export function normaliseForCompare(markdown: string): string {
  return outline(markdown)
    .map((node) => contentKey(node))
    .join('\n');
}

/** The overwrite endpoint takes at most this many characters. */
const MAX_PUSH_CHARS = 50_000;

/**
 * The Markdown sent on overwrite: the body with line endings unified and exactly one final newline, so
 * that the same file always sends the same text (push → read back → pull → push is a steady state).
 */
export function toPushMarkdown(body: string): string {
  const unified = body.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const trimmed = unified.replace(/\s+$/, '');
  if (trimmed.length > MAX_PUSH_CHARS) {
    throw new InputError('BODY_TOO_LARGE', `The document body has ${trimmed.length} characters; the service accepts at most ${MAX_PUSH_CHARS}.`, {
      hint: 'Split the file into smaller documents.',
    });
  }
  // The final newline is only a convention: a body of exactly the limit is sent without it (it reads back the same).
  return trimmed === '' ? '' : trimmed.length < MAX_PUSH_CHARS ? `${trimmed}\n` : trimmed;
}
