import { createHash } from 'node:crypto';
import type { Block } from '../model/blocks.js';
import { contentOfBlock } from './normalise.js';

/** sha256 hex of a text: the ledger's record of a body. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * sha256 hex of what a block list says, ignoring ids and positions: an overwrite by someone else gives
 * fresh ids to the same content, and that is not a change. List ids are kept out for the same reason;
 * list membership shows in the order and levels.
 */
export function blocksHash(blocks: readonly Block[]): string {
  const contents = blocks.map((block) => {
    const content = contentOfBlock(block);
    return block.type === 'unknown' ? { ...content, kind: block.kind } : content;
  });
  return contentHash(JSON.stringify(contents));
}
