import { blocksHash, merge3, predictedBlocks } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { joinText, splitText } from '../document-text.js';

/**
 * A file to write from a document this machine never synced, whose source another machine left in the
 * shared state: the source itself when the document is as that machine left it (front matter, code,
 * tables and formatting come back byte for byte), else the source with the document's later edits merged
 * in, as that machine would have merged them.
 */
export function decideIncoming(facts: {
  readonly source: string;
  /** What the document's blocks hashed to when the source was synced. */
  readonly syncedBlocksHash: string;
  /** The document's blocks now; undefined when the listing already showed it unchanged. */
  readonly remote: readonly Block[] | undefined;
}): { readonly text: string; readonly edited: boolean } {
  const { source, remote } = facts;
  if (!remote || blocksHash(remote) === facts.syncedBlocksHash) return { text: source, edited: false };
  const split = splitText(source);
  const merged = merge3({ base: split.body, remoteBase: predictedBlocks(split.body), remote, local: split.body });
  return { text: joinText(split.head, merged.body), edited: true };
}
