import type { PhrasingContent } from 'mdast';
import type { Points, Span } from './points.js';

/* Block ids (` ^b15695`): a place a link can name, not words of the block. */

/** ` ^b15695` ending a block: the id a `[[Note#^b15695]]` link names, which the editor does not show. */
const BLOCK_ID = /[ \t]+\^[A-Za-z0-9-]+[ \t]*$/;

/** A block's id is no text of it: the words end before it, and a push leaves it out (vault/lower.ts). */
export function dropBlockId(block: { children: PhrasingContent[] }, markdown: string, points: Points, found: Span[]): void {
  const last = block.children.at(-1);
  const start = last?.position?.start.offset;
  const end = last?.position?.end.offset;
  if (last?.type !== 'text' || start === undefined || end === undefined) return;
  const id = BLOCK_ID.exec(markdown.slice(start, end));
  const kept = id ? last.value.slice(0, last.value.length - (end - start - id.index)) : undefined;
  // The value must end as the source does (no escape or reference inside the id's run).
  if (!id || kept === undefined || last.value.slice(kept.length) !== markdown.slice(start + id.index, end)) return;
  found.push({ start: start + id.index, end });
  if (kept === '') block.children.pop();
  else Object.assign(last, { value: kept, position: points.span(start, start + id.index) });
}
