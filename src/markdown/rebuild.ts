import { isListBlock } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import { withComments } from './kept-comments.js';
import { placeItem, type ListEntry } from './list-shape.js';
import type { OutlineNode } from './outline.js';
import { hasMarkup, respaced, retext } from './retext.js';
import { escapeText } from './text.js';
import { renderBlock, renderItem } from './to-markdown.js';

/** Markdown for a block written fresh (no local source to keep), placed after the list items in `history`. */
export function freshMarkdown(block: Block, history: readonly ListEntry[]): string {
  return isListBlock(block) ? renderItem(placeItem(history, block), block.text) : renderBlock(block);
}

/** Source written for a remote text change; `simplified` when local formatting around the edit could not be kept. */
type Rebuilt = { readonly markdown: string; readonly simplified: boolean };

/** Where a list item's text stands in its source, and what a line added to it starts with (the text's column). */
function itemTextRange(source: string, sourceStart: number, node: OutlineNode): { readonly from: number; readonly to: number; readonly continuation: string } | undefined {
  if (!node.textSource) return undefined;
  const from = node.textSource.start - sourceStart;
  const lineStart = source.lastIndexOf('\n', from - 1) + 1;
  return { from, to: node.textSource.end - sourceStart, continuation: ' '.repeat(from - lineStart) };
}

/**
 * A list item's own source with its text replaced, keeping indentation, marker, task box and whatever
 * follows its first paragraph (content the service does not show); the edit itself goes into the text's
 * own source where it can (see retext), so links and code around it stay.
 */
function replaceItemText(source: string, sourceStart: number, node: OutlineNode, text: string, definitions: string): Rebuilt | undefined {
  const range = itemTextRange(source, sourceStart, node);
  if (!range) return undefined;
  const { from, to, continuation } = range;
  const kept = retext(source.slice(from, to), text, definitions);
  if (kept !== undefined) return { markdown: source.slice(0, from) + kept.markdown + source.slice(to), simplified: kept.simplified };
  const escaped = escapeText(text, 'block').split('\n').join(`\n${continuation}`);
  if (escaped === '') return undefined;
  return { markdown: source.slice(0, from) + withComments(escaped, source.slice(from, to)) + source.slice(to), simplified: hasMarkup(source.slice(from, to), definitions) };
}

/**
 * A block written anew in place of its source: what the editor hides keeps its place (the blocks of it after
 * the block's own source, block ids and comments, as written; the comments in it, after the new words).
 */
function anew(markdown: string, source: string, sourceStart: number, node: OutlineNode, table = false): string {
  const own = Math.min(source.length, Math.max(0, node.source.end - sourceStart));
  return withComments(markdown, source.slice(0, own), table) + source.slice(own);
}

/** The remote's new text in the local source where it can be written in place, else plain (saying so when markup is lost). */
function retextOrPlain(source: string, sourceStart: number, node: OutlineNode, remote: Block, definitions: string): Rebuilt {
  const text = 'text' in remote ? remote.text : '';
  const kept = retext(source, text, definitions);
  return kept ?? { markdown: anew(renderBlock(remote), source, sourceStart, node), simplified: hasMarkup(source, definitions) };
}

/**
 * A block's source spaced as a read of it now shows, its words unchanged (MergeState.respacedRemote): a list item's
 * text in place, a paragraph or quote whole. Headings are one line, and other blocks show no text to space.
 */
export function respace(source: string, sourceStart: number, node: OutlineNode, remote: Block, definitions = ''): string {
  if (remote.type !== node.type || !('text' in remote)) return source;
  if (isListBlock(remote)) {
    const range = itemTextRange(source, sourceStart, node);
    if (!range) return source;
    const { from, to, continuation } = range;
    return source.slice(0, from) + respaced(source.slice(from, to), remote.text, definitions, continuation) + source.slice(to);
  }
  return remote.type === 'paragraph' || remote.type === 'blockquote' ? respaced(source, remote.text, definitions) : source;
}

/**
 * The Markdown of a block whose remote text changed, in the shape of its local source where that is
 * cheap (list marker and indentation, what an item holds besides its text). Undefined when the change
 * cannot be written without losing something: the caller keeps the local source and reports a conflict.
 */
export function rebuild(source: string, sourceStart: number, node: OutlineNode, remote: Block, history: readonly ListEntry[], definitions = ''): Rebuilt | undefined {
  if (remote.type !== node.type) return { markdown: anew(freshMarkdown(remote, history), source, sourceStart, node, remote.type === 'table'), simplified: hasMarkup(source, definitions) };
  switch (remote.type) {
    case 'unorderedList':
    case 'orderedList':
      return replaceItemText(source, sourceStart, node, remote.text, definitions);
    case 'table':
      // Without cells the remote table cannot be drawn, and guessing would lose the local cells.
      return remote.cells ? { markdown: anew(renderBlock(remote), source, sourceStart, node, true), simplified: false } : undefined;
    case 'unknown':
      return { markdown: source, simplified: false };
    case 'heading':
      // A new level is a new heading line; the words keep their formatting where the text allows.
      return remote.level === node.level ? retextOrPlain(source, sourceStart, node, remote, definitions) : { markdown: anew(renderBlock(remote), source, sourceStart, node), simplified: hasMarkup(source, definitions) };
    case 'paragraph':
    case 'blockquote':
      return retextOrPlain(source, sourceStart, node, remote, definitions);
  }
}
