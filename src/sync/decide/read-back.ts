import type { DocumentRecord } from '../../ledger/index.js';
import { align, blocksHash, isPrediction, predictedBlocks } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { splitText } from '../content/document-text.js';
import { readsAs } from './push-markdown.js';

/**
 * A write is read back by the first read of its document once the write's minute may be over, not right after
 * it (act/apply-body.ts): the service stamps times to the minute, so a read in the write's own minute cannot
 * tell a colleague's later edit in that minute from the write, and every such document was read once more by
 * the next run anyway. Until then the record holds the blocks the write was expected to make (a prediction,
 * markdown/predict.ts) under the prediction's own hash, and is to be re-checked; its shared-state record says
 * that hash too. The first read that agrees with the prediction, block by block, is the read-back it stands
 * for: reads may say less than a prediction (a table's cells, a list item's text), so its hash alone cannot
 * tell. A read that does not agree is someone's edit since the write, merged against the prediction as it
 * would be against any read-back.
 */

/**
 * Do the blocks read now stand for a recorded hash of a document's blocks? They hash to it, or it is the hash
 * of the blocks predicted from the text recorded with it (a write nobody has read back yet, by this machine or
 * another) and they read as those.
 */
export function standFor(remote: readonly Block[], recordedHash: string, text: string): boolean {
  if (blocksHash(remote) === recordedHash) return true;
  const predicted = predictedBlocks(splitText(text).body);
  return blocksHash(predicted) === recordedHash && readsAs(predicted, remote);
}

/** The record with `remote` as its write's read-back, when it awaits one and they agree (see above); else as it is. */
export function withReadBack(record: DocumentRecord, remote: readonly Block[]): DocumentRecord {
  if (!awaitsReadBack(record) || !readsAs(record.remoteBlocks, remote)) return record;
  const alignment = align(splitText(record.baseMarkdown).body, remote) as DocumentRecord['alignment'];
  return { ...record, remoteBlocks: [...remote], remoteBlocksHash: blocksHash(remote), alignment };
}

/** A record whose blocks no read has given since its write: a prediction, standing under its own hash. */
const awaitsReadBack = (record: Pick<DocumentRecord, 'recheck' | 'remoteBlocks' | 'remoteBlocksHash'>): boolean =>
  record.recheck && isPrediction(record.remoteBlocks) && record.remoteBlocksHash === blocksHash(record.remoteBlocks);
