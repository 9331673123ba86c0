import type { List, ListItem, Paragraph, RootContent, Table } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from './parse.js';

/** A block before it gets its id and index: `blockType` plus one object named after it. */
export type BlockPayload = { readonly blockType: string; readonly [kind: string]: unknown };

/**
 * A converted block and, for paragraphs, the offset where its source ends (appendText inserts there); for a block
 * whose content the service hides, that content (`hidden`, never served: see StoredBlock).
 */
export type ConvertedBlock = { readonly payload: BlockPayload; readonly sourceEnd?: number; readonly hidden?: string };

/**
 * Markdown → the service's top-level typed blocks, lossy the way the service is: inline formatting is
 * flattened, each list item is its own block, tables keep only their sizes, everything else is `unknown`.
 */
export function markdownToBlocks(markdown: string, newListId: () => string): ConvertedBlock[] {
  const out: ConvertedBlock[] = [];
  for (const node of parseMarkdown(markdown).children) convertTopLevel(node, markdown, out, newListId);
  return out;
}

function convertTopLevel(node: RootContent, source: string, out: ConvertedBlock[], newListId: () => string): void {
  switch (node.type) {
    case 'heading':
      out.push({ payload: { blockType: 'heading', heading: { level: `heading-${node.depth}`, text: toString(node) } } });
      return;
    case 'paragraph':
      out.push(paragraphBlock(node, source));
      return;
    case 'list':
      convertList(node, 1, out, newListId);
      return;
    case 'blockquote':
      out.push({ payload: { blockType: 'blockquote', blockquote: { text: node.children.map((child) => toString(child)).join('\n') } } });
      return;
    case 'table':
      out.push({ payload: { blockType: 'table', table: tableSize(node) }, ...hiddenOf(node, source) });
      return;
    default:
      out.push({ ...unknownBlock(), ...hiddenOf(node, source) });
  }
}

const unknownBlock = (): ConvertedBlock => ({ payload: { blockType: 'unknown', unknown: {} } });

/** The source of a node the service shows nothing (or only the size) of. */
const hiddenOf = (node: RootContent, source: string): { readonly hidden?: string } => {
  const { start, end } = node.position ?? {};
  return start?.offset === undefined || end?.offset === undefined ? {} : { hidden: source.slice(start.offset, end.offset) };
};

/** A paragraph of only images (and blank text) is an image block to the service, hence unknown. */
function paragraphBlock(node: Paragraph, source: string): ConvertedBlock {
  const onlyImages = node.children.every(
    (child) => child.type === 'image' || child.type === 'imageReference' || (child.type === 'text' && child.value.trim() === '') || child.type === 'break',
  );
  if (onlyImages) return { ...unknownBlock(), ...hiddenOf(node, source) };
  const payload = { blockType: 'paragraph', paragraph: { text: toString(node) } };
  let end = node.position?.end.offset;
  if (end === undefined) return { payload };
  // The position may take in trailing blanks at the end of the document; appended text belongs before them.
  while (end > 0 && (source[end - 1] === ' ' || source[end - 1] === '\t')) end--;
  return { payload, sourceEnd: end };
}

function convertList(list: List, level: number, out: ConvertedBlock[], newListId: () => string): void {
  const kind = list.ordered ? 'orderedList' : 'unorderedList';
  const listId = newListId();
  for (const item of list.children) {
    out.push({ payload: { blockType: kind, [kind]: { text: itemText(item), list: { listId, level } } } });
    for (const child of item.children) if (child.type === 'list') convertList(child, level + 1, out, newListId);
  }
}

function itemText(item: ListItem): string {
  const first = item.children[0];
  return first?.type === 'paragraph' ? toString(first) : '';
}

function tableSize(table: Table): { colSize: number; rowSize: number } {
  const colSize = Math.max(table.align?.length ?? 0, ...table.children.map((row) => row.children.length));
  return { colSize, rowSize: table.children.length };
}
