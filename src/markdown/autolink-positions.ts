import type { Nodes, Parent, Root } from 'mdast';
import type { Extension } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';
import { charMap } from './source-map.js';
import { pointsOf } from './wiki/points.js';

/*
 * GFM finds some literal autolinks (`<www.example.com>`, an address after a character its tokenizer does not
 * start one after) only once the tree is made, by splitting text nodes, and the pieces it makes have no
 * place in the source (syntax-tree/mdast-util-gfm-autolink-literal#6). Everything kbsync writes into a
 * source by offsets skips a node without one: the paragraph's wiki links stayed words, a colleague's edit of
 * it was written plain, a link's destination could not be found. So each piece gets back its place, from
 * the text node it was cut from.
 */

/** Text children that may hold an address, by parent, as they were before the split: the nodes and their places. */
type Before = Map<Parent, readonly Nodes[]>;

const MAY_HOLD_ADDRESS = /www\.|:\/\/|@/i;

/**
 * Two extensions for mdast-util-from-markdown, one to go before GFM's and one after: the first notes the
 * children of every parent with a text that may hold an address, the second places the pieces GFM cut them into.
 */
export function autolinkPositions(source: () => string): { readonly before: Extension; readonly after: Extension } {
  let noted: Before = new Map();
  const note = (tree: Root): undefined => {
    noted = new Map();
    const walk = (node: Nodes): void => {
      if (!('children' in node)) return;
      if (node.children.some((child) => child.type === 'text' && MAY_HOLD_ADDRESS.test(child.value))) noted.set(node, [...node.children]);
      for (const child of node.children) walk(child);
    };
    walk(tree);
    return undefined;
  };
  const place = (): undefined => {
    if (noted.size === 0) return undefined;
    const markdown = source();
    const points = pointsOf(markdown);
    for (const [parent, before] of noted) placePieces(parent, before, markdown, points);
    noted = new Map();
    return undefined;
  };
  return { before: { transforms: [note] }, after: { transforms: [place] } };
}

/** The children now where one child was before: the pieces it was cut into, given places within its own. */
function placePieces(parent: Parent, before: readonly Nodes[], markdown: string, points: ReturnType<typeof pointsOf>): void {
  const now = parent.children as Nodes[];
  let i = 0;
  for (let k = 0; k < before.length && i < now.length; k++) {
    const was = before[k] as Nodes;
    if (now[i] === was) {
      i++;
      continue;
    }
    const next = before[k + 1];
    const pieces: Nodes[] = [];
    while (i < now.length && now[i] !== next) pieces.push(now[i++] as Nodes);
    const start = was.position?.start.offset;
    const end = was.position?.end.offset;
    if (was.type !== 'text' || start === undefined || end === undefined) continue;
    const map = charMap(was.value, markdown, start, end);
    if (!map || pieces.map((piece) => toString(piece)).join('') !== was.value) continue;
    let at = 0;
    for (const piece of pieces) {
      const length = toString(piece).length;
      const span = points.span(map[at] as number, at + length === was.value.length ? end : (map[at + length] as number));
      piece.position ??= span;
      if (piece.type === 'link') for (const child of piece.children) child.position ??= span;
      at += length;
    }
  }
}
