import type { Block, BlockType } from './blocks.js';

/**
 * Every block kind kbsync models, and what the rest of the code needs to know about it: the one place to
 * look (and the one place to change) when the service reads a kind differently. Kinds the service reports
 * that are not here become `unknown`.
 */
const BLOCK_KINDS = {
  heading: { list: false, textMayBeMissing: false },
  paragraph: { list: false, textMayBeMissing: false },
  unorderedList: { list: true, textMayBeMissing: true },
  orderedList: { list: true, textMayBeMissing: true },
  // Some reads return a quote's text empty (real-service-notes): tolerated, like list items.
  blockquote: { list: false, textMayBeMissing: true },
  // A table reads as its size (and cells, when the service gives them); code, images and the rest as unknown.
  table: { list: false, textMayBeMissing: false },
  unknown: { list: false, textMayBeMissing: false },
} as const satisfies Record<BlockType, { readonly list: boolean; readonly textMayBeMissing: boolean }>;

type ListBlock = Extract<Block, { readonly type: 'unorderedList' | 'orderedList' }>;

/** The service's `blockType` names kbsync reads as themselves (any other is `unknown`). */
export const isKnownBlockType = (kind: string): kind is Exclude<BlockType, 'unknown'> => kind !== 'unknown' && Object.hasOwn(BLOCK_KINDS, kind);

const isListType = (type: BlockType): type is ListBlock['type'] => BLOCK_KINDS[type].list;

export const isListBlock = (block: Block | undefined): block is ListBlock => block !== undefined && isListType(block.type);

/** List items' and quotes' text may come back empty from a read: an empty text then matches any. */
export const textMayBeMissing = (type: BlockType): boolean => BLOCK_KINDS[type].textMayBeMissing;
