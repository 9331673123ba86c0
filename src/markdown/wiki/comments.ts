import type { Nodes } from 'mdast';
import type { Span } from './points.js';

/*
 * Comments (`%%not for readers%%`): the editor does not show them, and a push leaves out a paragraph of the note
 * that is one comment (lines and all), so what a person keeps to themselves in a block of its own is not
 * published. A comment within a line stays words (README says so): leaving it out changes what the blanks
 * around it mean to CommonMark (trailing, leading, a hard break, a heading's or a cell's edge), and what is
 * sent must read exactly as the file reads.
 */

/** A paragraph at the note's top level that is one comment, from its first `%%` to its last: where it is written. */
export function commentParagraph(node: Nodes, markdown: string): Span | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (node.type !== 'paragraph' || start === undefined || end === undefined) return undefined;
  // A block id after it names the comment, and goes with it; a paragraph of only an id names the block before it.
  const written = markdown.slice(start, end).replace(/(?:[ \t]+|[ \t]*\n[ \t]*)\^[A-Za-z0-9-]+[ \t]*$/, '');
  const comment = written.length >= 4 && written.startsWith('%%') && written.indexOf('%%', 2) === written.length - 2;
  return comment || /^\^[A-Za-z0-9-]+[ \t]*$/.test(written) ? { start, end } : undefined;
}
