import type { List, ListItem, Paragraph, RootContent, Table } from 'mdast';
import type { Node } from 'unist';
import { toString } from 'mdast-util-to-string';
import type { BlockType } from '../model/blocks.js';
import { factOf, forgetWithParses } from './parse.js';

/** Offsets into the body, end exclusive. */
export type SourceRange = { readonly start: number; readonly end: number };

/**
 * One block the service is expected to make of a body. A prediction: the real service may differ
 * (empty list text, extra or merged blocks), so everything that consumes it aligns tolerantly.
 */
export type OutlineNode = {
  readonly type: BlockType;
  /** Plain text as the service flattens it (mdast-util-to-string semantics); '' for tables and unknowns. */
  readonly text: string;
  /** Heading depth 1-6; list nesting depth, 1 for the outermost list. */
  readonly level?: number;
  /** `list-<n>`, shared by the items of one Markdown list (nested lists are lists of their own). */
  readonly listId?: string;
  readonly cols?: number;
  readonly rows?: number;
  /** Table cell texts, header row first. */
  readonly cells?: readonly (readonly string[])[];
  /** The top-level mdast node; for a list item, the whole item (nested lists included). */
  readonly source: SourceRange;
  /** Where the text itself is written: heading content, paragraph, an item's first paragraph. */
  readonly textSource?: SourceRange;
};

function rangeOf(node: Node): SourceRange {
  return { start: node.position?.start.offset ?? 0, end: node.position?.end.offset ?? 0 };
}

/** A paragraph of only images (blank text and breaks aside) is an image block to the service. */
function isImageOnly(node: Paragraph): boolean {
  return node.children.every(
    (child) =>
      child.type === 'image' ||
      child.type === 'imageReference' ||
      child.type === 'break' ||
      (child.type === 'text' && child.value.trim() === ''),
  );
}

function tableNode(table: Table, source: SourceRange): OutlineNode {
  const cells = table.children.map((row) => row.children.map((cell) => toString(cell)));
  const cols = Math.max(table.align?.length ?? 0, ...cells.map((row) => row.length));
  return { type: 'table', text: '', cols, rows: cells.length, cells, source };
}

/** Outline builder: numbers lists in document order so list ids are stable for one body. */
class OutlineBuilder {
  readonly nodes: OutlineNode[] = [];
  #lists = 0;

  topLevel(node: RootContent): void {
    const source = rangeOf(node);
    switch (node.type) {
      case 'heading': {
        const first = node.children[0];
        const last = node.children.at(-1);
        const textSource = first && last ? { start: rangeOf(first).start, end: rangeOf(last).end } : undefined;
        this.nodes.push({ type: 'heading', text: toString(node), level: node.depth, source, ...(textSource ? { textSource } : {}) });
        return;
      }
      case 'paragraph':
        if (isImageOnly(node)) this.nodes.push({ type: 'unknown', text: '', source });
        else this.nodes.push({ type: 'paragraph', text: toString(node), source, textSource: source });
        return;
      case 'list':
        this.list(node, 1);
        return;
      case 'blockquote':
        this.nodes.push({ type: 'blockquote', text: node.children.map((child) => toString(child)).join('\n'), source });
        return;
      case 'table':
        this.nodes.push(tableNode(node, source));
        return;
      default:
        this.nodes.push({ type: 'unknown', text: '', source });
    }
  }

  list(list: List, level: number): void {
    const listId = `list-${++this.#lists}`;
    const type = list.ordered ? 'orderedList' : 'unorderedList';
    for (const item of list.children) {
      this.nodes.push({ type, listId, level, source: rangeOf(item), ...itemText(item) });
      for (const child of item.children) if (child.type === 'list') this.list(child, level + 1);
    }
  }
}

function itemText(item: ListItem): { text: string; textSource?: SourceRange } {
  const first = item.children[0];
  if (first?.type !== 'paragraph') return { text: '' };
  // A task item's text starts after its box, which the parse leaves in the paragraph's range when the text
  // begins with formatting (`[x] **bold**`: mdast-util-gfm-task-list-item moves the start only past a text
  // node). Written over as text, the box went with any remote edit of the item (model seed 7042).
  const range = rangeOf(first);
  const start = typeof item.checked === 'boolean' ? (first.children[0]?.position?.start.offset ?? range.start) : range.start;
  return { text: toString(first), textSource: { start: Math.max(range.start, start), end: range.end } };
}

/** One entry per block the service is expected to make of `body`, in order. */
export function outline(body: string): OutlineNode[] {
  return shifted.get(body) ?? parsedOutline(body);
}

const parsedOutline = factOf((tree): OutlineNode[] => {
  const builder = new OutlineBuilder();
  for (const node of tree.children) builder.topLevel(node);
  return builder.nodes;
});

/** Characters `start`..`end` of a source replaced by `length` others. */
export type Replacement = { readonly start: number; readonly end: number; readonly length: number };

/**
 * The outlines of bodies made from a parsed one by replacing characters inside link and image
 * destinations only (the push's URL rewrite), by text. Such a body has the same blocks with the same
 * texts (a destination is never part of the text the service shows), only further along: working its
 * outline out saves the parse of every rewritten body a push sends and checks its read-back against.
 * Bounded, and dropped with the facts of parses (forgetParses), not at the end of a run.
 */
const shifted = new Map<string, OutlineNode[]>();
const SHIFTED_MAX = 512;
forgetWithParses(() => shifted.clear());

/**
 * Tells `outline` what `result` (made from `source` by `replacements`, which the caller guarantees lie
 * inside destinations and hold no character that could end one) reads as, without parsing it.
 */
export function rememberShiftedOutline(source: string, replacements: readonly Replacement[], result: string): void {
  if (replacements.length === 0 || shifted.has(result)) return;
  if (shifted.size >= SHIFTED_MAX) shifted.delete(shifted.keys().next().value as string);
  shifted.set(result, shiftOutline(outline(source), replacements));
}

/** The outline with every offset moved past the replacements before it (one at or before a replacement stays). */
export function shiftOutline(nodes: readonly OutlineNode[], replacements: readonly Replacement[]): OutlineNode[] {
  const moved = (offset: number): number => replacements.reduce((at, r) => (r.end <= offset ? at + r.length - (r.end - r.start) : at), offset);
  const range = (r: SourceRange): SourceRange => ({ start: moved(r.start), end: moved(r.end) });
  return nodes.map((node) => ({ ...node, source: range(node.source), ...(node.textSource ? { textSource: range(node.textSource) } : {}) }));
}
