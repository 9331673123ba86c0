import { blocksHash, merge3, predictedBlocks } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { joinText, splitText } from '../content/document-text.js';
import type { ReadingMarks } from './types.js';

/**
 * A file to write from a document this machine never synced, whose source another machine left in the
 * shared state: the source itself when the document is as that machine left it (front matter, code,
 * tables and formatting come back byte for byte), else the source with the document's later edits merged
 * in, as that machine would have merged them.
 */
export function decideIncoming(facts: {
  readonly source: string;
  /** What the document's blocks hashed to when the source was synced, and the latest minute that write can bear. */
  readonly syncedBlocksHash: string;
  readonly syncedTime: string;
  /** The source was not the document's exact Markdown even then (a colleague's edit taken in as plain text). */
  readonly lossy: boolean;
  /** The document's blocks now; undefined when the listing already showed it unchanged. */
  readonly remote: readonly Block[] | undefined;
  readonly listedTime: string;
}): { readonly text: string; readonly marks: ReadingMarks } {
  const { source, remote } = facts;
  if (!remote || blocksHash(remote) === facts.syncedBlocksHash) {
    // Its blocks as that machine left them, its time later: someone edited where reads cannot see.
    const hidden = remote !== undefined && facts.syncedTime !== '' && facts.listedTime > facts.syncedTime;
    return { text: source, marks: { lossy: facts.lossy, hiddenEdit: hidden ? facts.listedTime : null } };
  }
  const split = splitText(source);
  const predicted = predictedBlocks(split.body);
  // The document shows exactly the source: the write that stands for it is that writer's (its record came first).
  if (blocksHash(remote) === blocksHash(predicted)) return { text: source, marks: { lossy: facts.lossy, hiddenEdit: null } };
  const merged = merge3({ base: split.body, remoteBase: predicted, remote, local: split.body });
  // Taken from the plain reading: formatting the edit added is not in the file (an emptied document has none).
  return { text: joinText(split.head, merged.body), marks: { lossy: remote.length > 0, hiddenEdit: null } };
}
