import type { Block } from '../model/blocks.js';
import { asBlockId } from '../model/ids.js';
import { outline } from './outline.js';

const PREDICTED = 'predicted-';

/** Blocks made by `predictedBlocks`, not read: no id the service gave (an empty body is both). */
export const isPrediction = (blocks: readonly Block[]): boolean => blocks.every((block) => block.id.startsWith(PREDICTED));

/**
 * The blocks the service is expected to make of a body, as if read back right after a push: the remote
 * base of a document whose real read-back this machine never saw (its state came from another machine).
 * Ids are made up, so merges pair these blocks with real ones by content, as they do after an overwrite.
 */
export function predictedBlocks(body: string): Block[] {
  return outline(body).map((node, index): Block => {
    const id = asBlockId(`${PREDICTED}${index}`);
    switch (node.type) {
      case 'heading':
        return { id, index, type: 'heading', level: node.level ?? 1, text: node.text };
      case 'unorderedList':
      case 'orderedList':
        return { id, index, type: node.type, text: node.text, listId: node.listId ?? '', level: node.level ?? 1 };
      case 'table':
        return { id, index, type: 'table', cols: node.cols ?? 0, rows: node.rows ?? 0, ...(node.cells ? { cells: node.cells } : {}) };
      case 'unknown':
        return { id, index, type: 'unknown', kind: 'unknown' };
      case 'paragraph':
      case 'blockquote':
        return { id, index, type: node.type, text: node.text };
    }
  });
}
