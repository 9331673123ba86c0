import { parseMarkdown } from './parse.js';

/*
 * A note's comments (`%%…%%`, `<!--…-->` in a vault: wiki/comments.ts) never reach the knowledge base, so a
 * colleague editing a block there never sees them and cannot mean to remove them. Wherever a pull writes a
 * block anew from the service's reading, or drops it, the comments of its source are kept (merge.ts,
 * rebuild.ts): the file loses nothing its editor hid.
 */

/** The comments written in a block's source, as written (one cut off by the block's end runs to it). */
export function commentsIn(source: string): string[] {
  if (!source.includes('%%') && !source.includes('<!--')) return [];
  return (parseMarkdown(source).data?.comments ?? []).map(({ start, end }) => source.slice(start, end));
}

/**
 * A block's new Markdown with the comments of its old source that it lacks: after its words (on a line of
 * their own after a table, whose last row they would otherwise join).
 */
export function withComments(markdown: string, source: string, table = false): string {
  const lost = commentsIn(source).filter((comment) => !markdown.includes(comment));
  if (lost.length === 0) return markdown;
  const words = markdown.trimEnd();
  return `${words}${words === '' ? '' : table ? '\n\n' : ' '}${lost.join(' ')}${markdown.slice(words.length)}`;
}
