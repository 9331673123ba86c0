import { blocksHash, merge3, predictedBlocks } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { joinText, splitText } from '../content/document-text.js';
import type { ReadingMarks } from './types.js';
import { webEditDoubt, worse, type WebEditsPolicy } from './web-edits.js';
import { standFor } from './read-back.js';

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
  /** With `lossy`: all it lacked was the formatting of words a colleague wrote (DocRecord `f`). */
  readonly formattingOnly: boolean;
  /** With `lossy`: what it lacked is an edit reads cannot show (DocRecord `hd`; a record from before it: true). */
  readonly hidden: boolean;
  /** The document's blocks now; undefined when the listing already showed it unchanged. */
  readonly remote: readonly Block[] | undefined;
  readonly listedTime: string;
  /** What a colleague's web-editor edit since leaves the file short of (merge.webEdits). */
  readonly webEdits: WebEditsPolicy;
  /** The source's front matter was kept by its writer across a plain reading (DocRecord `hc`): the file's is too. */
  readonly headCarried?: boolean;
}): { readonly text: string; readonly marks: ReadingMarks } {
  const { source, remote } = facts;
  const kept = { lossy: facts.lossy, formattingOnly: facts.formattingOnly, hiddenBase: facts.lossy && facts.hidden, headCarried: facts.headCarried === true };
  if (!remote || standFor(remote, facts.syncedBlocksHash, source)) {
    // Its blocks as that machine left them, its time later: someone edited where reads cannot see.
    const hidden = remote !== undefined && facts.syncedTime !== '' && facts.listedTime > facts.syncedTime;
    return { text: source, marks: { ...kept, hiddenEdit: hidden ? facts.listedTime : null } };
  }
  const split = splitText(source);
  const predicted = predictedBlocks(split.body);
  // The document shows exactly the source: the write that stands for it is that writer's (its record came first).
  if (blocksHash(remote) === blocksHash(predicted)) return { text: source, marks: { ...kept, hiddenEdit: null } };
  const merged = merge3({ base: split.body, remoteBase: predicted, remote, local: split.body });
  // Taken from the plain reading: formatting the edit added is not in the file (an emptied document has none),
  // which only a page a read shows whole lets kbsync write over (merge.webEdits).
  const before = !facts.lossy ? 'none' : facts.formattingOnly ? 'formatting' : 'content';
  const doubt = remote.length === 0 ? 'none' : worse(before, webEditDoubt(facts.webEdits, { remoteBase: predicted, remote, theirs: merged.body }));
  // The document changed since that source, read plainly: its front matter is the source's, kept across the reading.
  return { text: joinText(split.head, merged.body), marks: { lossy: doubt !== 'none', formattingOnly: doubt === 'formatting', hiddenBase: before === 'content' && facts.hidden, hiddenEdit: null, headCarried: true } };
}
