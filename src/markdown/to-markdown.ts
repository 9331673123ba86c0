import { isListBlock } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import { markerText, placeItem, type ListEntry } from './list-shape.js';
import { escapeText } from './text.js';

/** Every comment kbsync writes for content the service does not expose starts with this. */
export const PLACEHOLDER_PREFIX = '<!-- kbsync:';

type BlocksToMarkdownOptions = {
  /** Markdown written for a block whose content cannot be read (unknown kinds, tables without cells). */
  readonly placeholder?: (block: Block) => string;
};

function defaultPlaceholder(block: Block): string {
  if (block.type === 'table') {
    return `${PLACEHOLDER_PREFIX} a table (${block.rows} rows × ${block.cols} columns) is here; the service does not expose its cells; edit it in the web editor -->`;
  }
  return `${PLACEHOLDER_PREFIX} a block the service does not expose (code, image or other) is here; edit it in the web editor -->`;
}

/** Does a body hold placeholders? Overwriting the remote with it would replace the hidden content. */
export const hasPlaceholders = (body: string): boolean => body.includes(PLACEHOLDER_PREFIX);

/** One placeholder comment, as written on a line of its own. */
const PLACEHOLDER = new RegExp(`${PLACEHOLDER_PREFIX}[^\\n]*?-->`, 'g');

/**
 * Does `text` hold a placeholder `base` does not (counted one by one: a page's second code block is a second
 * placeholder)? Where it does, `text` stands kbsync's stand-in where `base` may hold the source.
 */
export function placeholdersBeyond(text: string, base: string): boolean {
  const known = new Map<string, number>();
  for (const placeholder of base.match(PLACEHOLDER) ?? []) known.set(placeholder, (known.get(placeholder) ?? 0) + 1);
  return (text.match(PLACEHOLDER) ?? []).some((placeholder) => {
    const left = known.get(placeholder) ?? 0;
    known.set(placeholder, left - 1);
    return left === 0;
  });
}


const renderHeading = (level: number, text: string): string =>
  `${'#'.repeat(Math.min(6, Math.max(1, Math.round(level))))} ${escapeText(text, 'heading')}`.trimEnd();

export const renderParagraph = (text: string): string => escapeText(text, 'block');

function renderQuote(text: string): string {
  const escaped = escapeText(text, 'block');
  return escaped === '' ? '>' : escaped.split('\n').map((line) => `> ${line}`).join('\n');
}

/** A GFM table from the cells a read gave, header row first; undefined when there is nothing to draw. */
function renderTable(cols: number, cells: readonly (readonly string[])[] | undefined): string | undefined {
  const width = Math.max(cols, ...(cells ?? []).map((row) => row.length));
  if (!cells || cells.length === 0 || width === 0) return undefined;
  const row = (values: readonly string[]): string =>
    `| ${Array.from({ length: width }, (_, k) => escapeText(values[k] ?? '', 'cell')).join(' | ')} |`.replace(/ {2}\|/g, ' |');
  const delimiter = `|${' --- |'.repeat(width)}`;
  return [row(cells[0] ?? []), delimiter, ...cells.slice(1).map(row)].join('\n');
}

export function renderItem(entry: ListEntry, text: string): string {
  const lines = escapeText(text, 'block').split('\n');
  const head = `${' '.repeat(entry.indent)}${markerText(entry)}`;
  const continuation = ' '.repeat(entry.contentIndent);
  const first = lines[0] ?? '';
  return [first === '' ? head : `${head} ${first}`, ...lines.slice(1).map((line) => continuation + line)].join('\n');
}

/**
 * Markdown of one block on its own ('' when it has nothing to show, like an empty paragraph). A list
 * item on its own is an outermost item; `blocksToMarkdown` places items within their lists.
 */
export function renderBlock(block: Block, options: BlocksToMarkdownOptions = {}): string {
  const placeholder = options.placeholder ?? defaultPlaceholder;
  switch (block.type) {
    case 'heading':
      return renderHeading(block.level, block.text);
    case 'paragraph':
      return renderParagraph(block.text);
    case 'blockquote':
      return renderQuote(block.text);
    case 'table':
      return renderTable(block.cols, block.cells) ?? placeholder(block);
    case 'unknown':
      return placeholder(block);
    case 'unorderedList':
    case 'orderedList':
      return renderItem(placeItem([], block), block.text);
  }
}

/**
 * Markdown for a document that has no local source yet (a new remote document). Items sharing a list id
 * form one list; levels nest. Texts are escaped so they read back as the same text.
 */
export function blocksToMarkdown(blocks: readonly Block[], options: BlocksToMarkdownOptions = {}): string {
  let out = '';
  let history: ListEntry[] = [];
  for (const block of blocks) {
    if (isListBlock(block)) {
      const entry = placeItem(history, block);
      out += (out === '' ? '' : history.length > 0 ? '\n' : '\n\n') + renderItem(entry, block.text);
      history.push(entry);
      continue;
    }
    const markdown = renderBlock(block, options);
    if (markdown === '') continue;
    out += (out === '' ? '' : '\n\n') + markdown;
    history = [];
  }
  return out === '' ? '' : `${out}\n`;
}
