import { diff3Merge } from 'node-diff3';

/**
 * Both sides' edits of one block, merged line by line as git (and `kbsync resolve`) merges a file: the block with
 * both edits when they changed different lines of it, none next to the other; undefined where they changed the
 * same lines, or neighbouring ones, differently (a clash, left for a person). A paragraph's lines are its
 * sentences as written: a word changed on one and another on the next line is no clash (soak seed 502: a
 * colleague's words on the third line of a paragraph whose first line had a word of ours opened a conflict that
 * `kbsync resolve` then settled without a question).
 */
export function mergeLines(base: string, ours: string, theirs: string): string | undefined {
  const lines: string[] = [];
  for (const part of diff3Merge(ours.split('\n'), base.split('\n'), theirs.split('\n'))) {
    if (!part.ok) return undefined;
    lines.push(...part.ok);
  }
  return lines.join('\n');
}
