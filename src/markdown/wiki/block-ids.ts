import type { Nodes, PhrasingContent } from 'mdast';
import type { Points, Span } from './points.js';

/* Block ids (` ^b15695`): a place a link can name, not words of the block. */

/**
 * ` ^b15695` ending a block, or on the line after it (where the editor puts a quote's or a list's): the id a
 * `[[Note#^b15695]]` link names, which the editor does not show.
 */
const BLOCK_ID = /(?:[ \t]+|[ \t]*\n[ \t]*)\^[A-Za-z0-9-]+[ \t]*$/;

/** A block's id is no text of it: the words end before it, and a push leaves it out (vault/lower.ts). */
export function dropBlockId(block: { children: PhrasingContent[] }, markdown: string, points: Points, found: Span[]): void {
  const last = block.children.at(-1);
  const start = last?.position?.start.offset;
  const end = last?.position?.end.offset;
  if (last?.type !== 'text' || start === undefined || end === undefined) return;
  // In the source and in the text alike (a blank before a line break is in the one, not the other; an escaped `\^` is no id).
  const written = BLOCK_ID.exec(markdown.slice(start, end));
  const read = BLOCK_ID.exec(last.value);
  if (!written || !read || written[0].trim() !== read[0].trim()) return;
  const kept = last.value.slice(0, read.index);
  found.push({ start: start + written.index, end });
  if (kept === '') block.children.pop();
  else Object.assign(last, { value: kept, position: points.span(start, start + written.index) });
}

/** A paragraph at the note's top level that is only an id (naming the block before it; a comment aside): where the id is written. */
export function blockIdParagraph(node: Nodes, markdown: string): Span | undefined {
  const only = node.type === 'paragraph' && node.children.length === 1 ? node.children[0] : undefined;
  const start = only?.position?.start.offset;
  const end = only?.position?.end.offset;
  if (only?.type !== 'text' || start === undefined || end === undefined) return undefined;
  return /^\^[A-Za-z0-9-]+[ \t]*$/.test(markdown.slice(start, end)) ? { start, end } : undefined;
}
