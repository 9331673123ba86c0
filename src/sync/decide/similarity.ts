/**
 * How much of one text another keeps, as git's rename detection measures it: the bytes of lines the two
 * have in common (each line counted as often as both have it, wherever it stands), over the larger text's
 * size. Moving paragraphs about keeps a text whole; rewording a line loses that line; a text twice as
 * long as another keeps at most half of it. Line endings do not count (a checkout may turn LF into CRLF).
 */

/** A text as the measure sees it: its lines with their counts, and its size (line endings aside). */
export type TextShape = { readonly lines: ReadonlyMap<string, number>; readonly size: number };

/**
 * The similarity from which a file gone and a new file are one file renamed (with an edit). git's default is
 * 50%. Measured on the model test's corpus of 48 real READMEs (test/model/rename-similarity.test.ts, five seeds):
 * two unrelated documents keep at most 48.8% of each other, and that only for two siblings written from one
 * template (badges, headings, licence and install lines alike; the next pair keeps 32.7%); a document after ten
 * of the model's edits (words, code, tables, links, a block deleted or added) keeps at least 61.3%, bar one of
 * 240 whose edits deleted a table that was most of it (38.8%); 5% keep under 84%, half under 95.6%. 60% keeps
 * clear of the template siblings. A pair below it costs only a new URL (a delete and a create, the title freed
 * first: placement.ts); an unrelated pair above it would give one file's document to another.
 */
export const RENAME_SIMILARITY = 0.6;

export function shapeOf(text: string): TextShape {
  const lines = new Map<string, number>();
  let size = 0;
  const split = text.split('\n');
  // A text's last newline ends its last line: it starts no empty one.
  if (split.length > 1 && split[split.length - 1] === '') split.pop();
  for (const line of split) {
    const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
    lines.set(bare, (lines.get(bare) ?? 0) + 1);
    size += bare.length + 1;
  }
  return { lines, size };
}

/** 0 (nothing in common) to 1 (the same lines). */
export function similarity(a: TextShape, b: TextShape): number {
  const larger = Math.max(a.size, b.size);
  if (larger === 0) return 1;
  // The smaller map is walked: a line kept counts at most as often as the text with fewer of it has it.
  const [few, many] = a.lines.size <= b.lines.size ? [a.lines, b.lines] : [b.lines, a.lines];
  let kept = 0;
  for (const [line, count] of few) kept += Math.min(count, many.get(line) ?? 0) * (line.length + 1);
  return kept / larger;
}

/** The most a pair of these sizes can keep of each other: a pair below the threshold by size alone is never compared. */
export const similarityBound = (a: TextShape, b: TextShape): number => (Math.max(a.size, b.size) === 0 ? 1 : Math.min(a.size, b.size) / Math.max(a.size, b.size));
