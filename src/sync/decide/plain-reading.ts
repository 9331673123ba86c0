import { merge3, placeholdersBeyond, type Alignment } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { splitText } from '../content/document-text.js';
import type { PublishedVersion } from './body.js';
import { standFor } from './read-back.js';

type Reading = { readonly baseMarkdown: string; readonly remoteBlocks: readonly Block[]; readonly alignment: unknown; readonly remoteBlocksHash: string };

/**
 * The record's body with every change the blocks read now show merged in: what this machine's own plain reading
 * of the document gives, its source kept where the blocks did not change, a placeholder for a block new since that
 * reads cannot show (code, an image).
 */
export function plainReading(record: Omit<Reading, 'remoteBlocksHash'>, remote: readonly Block[]): string {
  const base = splitText(record.baseMarkdown).body;
  return merge3({ base, remoteBase: record.remoteBlocks, remote, local: base, alignment: record.alignment as Alignment }).body;
}

/**
 * Whether another writer's version stands kbsync's placeholders where this machine may hold the source. Such a
 * version was made from a plain reading (a machine that found no source for the page), and where code stood it
 * says nothing: taken for newer Markdown, it replaced the code of the file that made the document with
 * placeholders (soak seed 13). Only a placeholder this machine has no source for is no loss:
 * - one its base holds as well (a page made in the web editor, read plainly here too), beside which the version
 *   says what reads never show, a note's comments (model seed 3 of note vaults: dropped, another machine's comment
 *   never reached this file);
 * - one its own plain reading of the very blocks the version was agreed on writes too: a block new since the base
 *   that reads cannot show, a colleague's code block (model seed 6002: dropped, the front matter the other machine
 *   added beside it never reached this one). Of other blocks the counts cannot tell whose placeholder is whose.
 */
export function placeholdsSource(version: Pick<PublishedVersion, 'text' | 'remoteBlocksHash'>, record: Reading, remote: readonly Block[]): boolean {
  if (!placeholdersBeyond(version.text, record.baseMarkdown)) return false;
  return !standFor(remote, version.remoteBlocksHash, version.text) || placeholdersBeyond(version.text, plainReading(record, remote));
}
