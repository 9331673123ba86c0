import type { Nodes } from 'mdast';
import type { Point, Position } from 'unist';

/* Source offsets as unist points, for the nodes the wiki reading makes in a tree it did not parse. */

export type Span = { readonly start: number; readonly end: number };

export type Points = { readonly at: (offset: number) => Point; readonly span: (start: number, end: number) => Position };

/** Line and column of source offsets (unist points), by a search of the lines' starts. */
export function pointsOf(markdown: string): Points {
  const starts = [0];
  for (let i = markdown.indexOf('\n'); i !== -1; i = markdown.indexOf('\n', i + 1)) starts.push(i + 1);
  const at = (offset: number): Point => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1, offset };
  };
  return { at, span: (start, end) => ({ start: at(start), end: at(end) }) };
}

/** A node parsed on its own, placed where it stands in the source: `by` characters further. */
export function shifted<T extends Nodes>(node: T, by: number, points: Points): T {
  const position = node.position ? points.span((node.position.start.offset ?? 0) + by, (node.position.end.offset ?? 0) + by) : undefined;
  const children = 'children' in node ? { children: (node.children as Nodes[]).map((child) => shifted(child, by, points)) } : {};
  return { ...node, ...children, ...(position ? { position } : {}) };
}
