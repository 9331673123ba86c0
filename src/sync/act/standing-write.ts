import { contentKey, contentOfBlock } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';

/** Blocks whose words a read shows: a save there is seen, where a code block or a table keeps its change hidden. */
const WORDED: ReadonlySet<Block['type']> = new Set(['heading', 'paragraph', 'unorderedList', 'orderedList', 'blockquote']);

/**
 * The blocks our answered write made, with the ids the service gave them, when a read right after it shows another
 * writer's save on top: the same blocks in the same order, only the words of some changed in place. The changed
 * ones carry our text under the service's id; the save is then the next read's news, a later edit as any other
 * (soak 742: a colleague's word saved between a write and its read-back, taken for a failed write, left the writer's
 * own change unrecorded and held for good). Undefined for any other shape (a block added, removed, moved or
 * retyped, or a change where a read cannot show it: a code block, a table): that save cannot be told from one
 * made before the write that ours replaced, and the write is failed as before, the next run merging from the
 * record it had.
 */
export function ourWriteUnder(predicted: readonly Block[], after: readonly Block[]): readonly Block[] | undefined {
  if (predicted.length !== after.length) return undefined;
  const ours: Block[] = [];
  for (const [index, read] of after.entries()) {
    const wrote = predicted[index] as Block;
    if (wrote.type !== read.type) return undefined;
    if (contentKey(contentOfBlock(wrote)) === contentKey(contentOfBlock(read))) ours.push(read);
    else if (WORDED.has(read.type) && 'text' in wrote && 'text' in read) ours.push({ ...read, text: wrote.text, ...(wrote.type === 'heading' ? { level: wrote.level } : {}) } as Block);
    else return undefined;
  }
  return ours;
}
