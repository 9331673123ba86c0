import { contentKey, contentOfBlock } from '../../markdown/index.js';
import { readingShowsAll, readsShowAll } from '../../markdown/visible.js';
import type { Block } from '../../model/blocks.js';

/**
 * What a colleague's edit in the web editor leaves kbsync free to do (config `merge.webEdits`):
 * - `merge`: on a page a read shows whole but for formatting, the edit is known exactly but for the formatting
 *   of the blocks whose words it wrote; it is merged into the file and the next local edit is published, the
 *   lines taken from the reading named once (formatting added there in the web editor cannot be seen, and that
 *   push writes them as the file has them);
 * - `hold-words`: the same where the colleague only removed or reordered blocks; once they wrote words (which
 *   they may have formatted), the next overwrite waits for a person (FLATTEN);
 * - `strict`: every web edit holds the next overwrite until a person says (the rule before this setting).
 * A page with what a read cannot show (code, a table, an image, a link definition) keeps the strict rule under
 * every policy: a hidden change can ride along with a visible one in the same save, and nothing in a reading
 * tells them apart (block ids stay through an edit of the block's content, and every `unknown` reads alike).
 */
export type WebEditsPolicy = 'merge' | 'hold-words' | 'strict';

/**
 * How much of what a document holds kbsync does not know, beyond the Markdown it has for it: nothing; the
 * formatting a colleague gave words they wrote in the web editor (the words are known); or more (content reads
 * cannot show, formatting over a whole page made in the web editor, or a policy that trusts no web edit).
 */
export type Doubt = 'none' | 'formatting' | 'content';

const RANK: Readonly<Record<Doubt, number>> = { none: 0, formatting: 1, content: 2 };

/** The larger of two doubts: what a version built on another (a later edit over an earlier one) is in doubt of. */
export const worse = (a: Doubt, b: Doubt): Doubt => (RANK[a] >= RANK[b] ? a : b);

/** What a recorded base is in doubt of (a hidden edit that stands is content nobody here saw). */
export const doubtOf = (record: { readonly lossyBase?: boolean; readonly formattingOnly?: boolean; readonly hiddenEdit?: string | null }): Doubt =>
  record.hiddenEdit != null ? 'content' : record.lossyBase !== true ? 'none' : record.formattingOnly === true ? 'formatting' : 'content';

/** Does an overwrite from a base in this doubt wait for a person (FLATTEN)? */
export const doubtHolds = (doubt: Doubt, policy: WebEditsPolicy): boolean => doubt === 'content' || (doubt === 'formatting' && policy !== 'merge');

/** The inputs of one judgement: the reading before the edit, the reading now, and the document in Markdown now (body). */
type WebEdit = { readonly remoteBase: readonly Block[]; readonly remote: readonly Block[]; readonly theirs: string };

/** What a web edit, taken in from its reading as `theirs`, leaves in doubt. */
export function webEditDoubt(policy: WebEditsPolicy, edit: WebEdit): Doubt {
  if (policy === 'strict' || !readingShowsAll(edit.remote) || !readsShowAll(edit.theirs)) return 'content';
  return wroteWords(edit.remoteBase, edit.remote) ? 'formatting' : 'none';
}

/** Some block of the reading now holds words no block held before: the colleague typed them. */
function wroteWords(before: readonly Block[], now: readonly Block[]): boolean {
  const seen = new Set(before.map((block) => contentKey(contentOfBlock(block))));
  return now.some((block) => 'text' in block && block.text.trim() !== '' && !seen.has(contentKey(contentOfBlock(block))));
}
