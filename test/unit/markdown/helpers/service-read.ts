import type { List, ListItem, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import type { Block } from '../../../../src/model/blocks.js';
import { asBlockId } from '../../../../src/model/ids.js';

/** Quirks of the real service a test can switch on; the defaults are the emulator's rules. */
export type ReadQuirks = {
  /** Real reads have returned list item and quote text empty. */
  readonly emptyListText?: boolean;
  /** Count list levels from 0 instead of 1. */
  readonly levelsFromZero?: boolean;
  /** Give table cells, as the documented shape does. */
  readonly tableCells?: boolean;
};

let counter = 0;
const freshId = (): string => `blk-${++counter}`;

type Payload = Block extends infer B ? (B extends Block ? Omit<B, 'id' | 'index'> : never) : never;

/**
 * What the service makes of a pushed body, written apart from src/markdown on purpose (a test that
 * used the outline to predict the outline could not fail): top-level nodes, one block per list item,
 * formatting flattened, code, images, HTML and the rest unknown. Fresh ids on every call.
 */
export function simulateServiceRead(markdown: string, quirks: ReadQuirks = {}): Block[] {
  const root = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const out: Payload[] = [];
  let lists = 0;
  const list = (node: List, level: number): void => {
    const listId = `L${++counter}-${++lists}`;
    const type = node.ordered ? 'orderedList' : 'unorderedList';
    for (const item of node.children) {
      out.push({ type, listId, level: quirks.levelsFromZero ? level - 1 : level, text: quirks.emptyListText ? '' : itemText(item) });
      for (const child of item.children) if (child.type === 'list') list(child, level + 1);
    }
  };
  const top = (node: RootContent): void => {
    if (node.type === 'heading') out.push({ type: 'heading', level: node.depth, text: toString(node) });
    else if (node.type === 'paragraph') {
      const images = node.children.every((c) => c.type === 'image' || c.type === 'imageReference' || c.type === 'break' || (c.type === 'text' && c.value.trim() === ''));
      out.push(images ? { type: 'unknown', kind: 'image' } : { type: 'paragraph', text: toString(node) });
    } else if (node.type === 'list') list(node, 1);
    else if (node.type === 'blockquote') out.push({ type: 'blockquote', text: quirks.emptyListText ? '' : node.children.map((c) => toString(c)).join('\n') });
    else if (node.type === 'table') {
      const cells = node.children.map((row) => row.children.map((cell) => toString(cell)));
      const cols = Math.max(node.align?.length ?? 0, ...cells.map((row) => row.length));
      out.push({ type: 'table', cols, rows: cells.length, ...(quirks.tableCells ? { cells } : {}) });
    } else out.push({ type: 'unknown', kind: node.type });
  };
  for (const node of root.children) top(node);
  return out.map((payload, index) => ({ ...payload, id: asBlockId(freshId()), index }) as Block);
}

function itemText(item: ListItem): string {
  const first = item.children[0];
  return first?.type === 'paragraph' ? toString(first) : '';
}

/** The same blocks under new ids, as an overwrite by someone else would give. */
export function withFreshIds(blocks: readonly Block[]): Block[] {
  return blocks.map((block) => ({ ...block, id: asBlockId(freshId()) }));
}

/** A new block, as the web editor would insert it. */
export function newBlock(payload: Payload): Block {
  return { ...payload, id: asBlockId(freshId()), index: 0 } as Block;
}

/** Renumber `index` after edits. */
export const reindex = (blocks: readonly Block[]): Block[] => blocks.map((block, index) => ({ ...block, index }));
