import { diffArrays, FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { oneLine } from '../../printable.js';

const splitLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/**
 * A unified diff (`--- a` / `+++ b` / `@@ -l,n +l,n @@` hunks, `context` lines around each change), the
 * format people read in code review and tools such as `patch` apply; a last line without its newline is
 * marked `\ No newline at end of file`, so a change of that byte alone shows too. Empty when the texts are
 * equal. The `diff` package computes it in memory bounded by the edit, not by the texts' product (the
 * hand-written one before it kept a copy of its search array per step: 758 MB here for a 48 KB file
 * rewritten line by line). Its labels name a file (a path someone chose): each is kept to its header line.
 */
export function unifiedDiff(before: string, after: string, labels: { readonly from: string; readonly to: string }, context = 3): string {
  if (before === after) return '';
  return formatPatch(structuredPatch(oneLine(labels.from), oneLine(labels.to), before, after, undefined, undefined, { context }), FILE_HEADERS_ONLY);
}

/** The same as lines, to print (each line one line of output: printable.ts). */
export const unifiedDiffLines = (before: string, after: string, labels: { readonly from: string; readonly to: string }): string[] => {
  const text = unifiedDiff(before, after, labels).trimEnd();
  return text === '' ? [] : text.split('\n');
};

/** The lines `after` has that `before` does not: what the demo shows arriving. */
export function addedLines(before: string, after: string): string[] {
  return diffArrays(splitLines(before), splitLines(after)).flatMap((part) => (part.added ? part.value : []));
}

/** How many items of a list changed: a replaced item counts once, as does one added or removed. */
export function changedItems(before: readonly string[], after: readonly string[]): number {
  const parts = diffArrays([...before], [...after]);
  const count = (side: 'added' | 'removed'): number => parts.reduce((sum, part) => sum + (part[side] ? part.value.length : 0), 0);
  return Math.max(count('removed'), count('added'));
}
