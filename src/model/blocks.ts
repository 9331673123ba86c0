import type { BlockId } from './ids.js';

/**
 * A top-level block of a document body, as kbsync understands it after tolerant parsing of the
 * service's answer (heading level as `heading-N` or a number, `rowSize` or `rolSize`, `cells` when given).
 * Text may be missing in real reads (list items, quotes), so it is `''` then, never undefined.
 */
export type Block =
  | { readonly id: BlockId; readonly index: number; readonly type: 'heading'; readonly level: number; readonly text: string }
  | { readonly id: BlockId; readonly index: number; readonly type: 'paragraph'; readonly text: string }
  | {
      readonly id: BlockId;
      readonly index: number;
      readonly type: 'unorderedList' | 'orderedList';
      readonly text: string;
      readonly listId: string;
      /** Nesting depth; 0 (or 1, depending on the service) for the outermost items: compare relatively. */
      readonly level: number;
    }
  | { readonly id: BlockId; readonly index: number; readonly type: 'blockquote'; readonly text: string }
  | {
      readonly id: BlockId;
      readonly index: number;
      readonly type: 'table';
      readonly cols: number;
      readonly rows: number;
      readonly cells?: readonly (readonly string[])[];
    }
  /** Code, images, HTML, rules and every kind the service does not expose. `kind` keeps the raw blockType. */
  | { readonly id: BlockId; readonly index: number; readonly type: 'unknown'; readonly kind: string };

export type BlockType = Block['type'];
