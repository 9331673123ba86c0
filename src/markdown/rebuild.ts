import { isListBlock } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import { placeItem, type ListEntry } from './list-shape.js';
import type { OutlineNode } from './outline.js';
import { escapeText } from './text.js';
import { renderBlock, renderItem } from './to-markdown.js';

/** Markdown for a block written fresh (no local source to keep), placed after the list items in `history`. */
export function freshMarkdown(block: Block, history: readonly ListEntry[]): string {
  return isListBlock(block) ? renderItem(placeItem(history, block), block.text) : renderBlock(block);
}

/**
 * A list item's own source with its text replaced, keeping indentation, marker, task box and whatever
 * follows its first paragraph (content the service does not show).
 */
function replaceItemText(source: string, sourceStart: number, node: OutlineNode, text: string): string | undefined {
  if (!node.textSource) return undefined;
  const from = node.textSource.start - sourceStart;
  const to = node.textSource.end - sourceStart;
  const lineStart = source.lastIndexOf('\n', from - 1) + 1;
  const continuation = ' '.repeat(from - lineStart);
  const escaped = escapeText(text, 'block').split('\n').join(`\n${continuation}`);
  if (escaped === '') return undefined;
  return source.slice(0, from) + escaped + source.slice(to);
}

/**
 * The Markdown of a block whose remote text changed, in the shape of its local source where that is
 * cheap (list marker and indentation, what an item holds besides its text). Undefined when the change
 * cannot be written without losing something: the caller keeps the local source and reports a conflict.
 */
export function rebuild(source: string, sourceStart: number, node: OutlineNode, remote: Block, history: readonly ListEntry[]): string | undefined {
  if (remote.type !== node.type) return freshMarkdown(remote, history);
  switch (remote.type) {
    case 'unorderedList':
    case 'orderedList':
      return replaceItemText(source, sourceStart, node, remote.text);
    case 'table':
      // Without cells the remote table cannot be drawn, and guessing would lose the local cells.
      return remote.cells ? renderBlock(remote) : undefined;
    case 'unknown':
      return source;
    case 'heading':
    case 'paragraph':
    case 'blockquote':
      return renderBlock(remote);
  }
}
