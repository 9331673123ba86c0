import { outline, type OutlineNode } from './outline.js';

/**
 * A body cut into one piece per outline node, so the merge can keep, replace or drop each block's own
 * source and reassemble the rest byte for byte. `body === lead + Σ (content + gap)` always holds.
 */
export type Segment = {
  readonly node: OutlineNode;
  /** Start of the block's own source: its line start when only indentation precedes it. */
  readonly start: number;
  /** End of its own source: a parent list item stops where its first nested item starts. */
  readonly end: number;
  /** End of the whitespace that follows, which is where the next segment starts. */
  readonly gapEnd: number;
};

export type SegmentedBody = {
  readonly body: string;
  readonly lead: string;
  readonly segments: readonly Segment[];
};

function lineStartIfIndented(body: string, offset: number): number {
  let at = offset;
  while (at > 0 && (body[at - 1] === ' ' || body[at - 1] === '\t')) at--;
  return at === 0 || body[at - 1] === '\n' ? at : offset;
}

const isSpace = (char: string | undefined): boolean => char !== undefined && /\s/.test(char);

export function segmentBody(body: string, nodes: readonly OutlineNode[] = outline(body)): SegmentedBody {
  const starts = nodes.map((node) => lineStartIfIndented(body, node.source.start));
  const segments = nodes.map((node, i): Segment => {
    const start = starts[i] ?? 0;
    const next = starts[i + 1] ?? body.length;
    let end = Math.max(start, Math.min(node.source.end, next));
    // Text between a node and the next that is not whitespace (an item's paragraph after its nested
    // list) belongs to this node's piece, so a gap is always only whitespace.
    if (body.slice(end, next).trim() !== '') end = next;
    while (end > start && isSpace(body[end - 1])) end--;
    return { node, start, end, gapEnd: next };
  });
  return { body, lead: body.slice(0, starts[0] ?? body.length), segments };
}

export const contentOf = (body: string, segment: Segment): string => body.slice(segment.start, segment.end);
export const gapOf = (body: string, segment: Segment): string => body.slice(segment.end, segment.gapEnd);
