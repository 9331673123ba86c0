/**
 * A file's line endings as one property of the whole text, merged like any other change: the side that
 * changed them (a file converted to CRLF on one machine) wins over the side that did not, and the merged
 * text is written with them throughout. Mixed endings are nobody's to unify: they are left as they are.
 */
type LineEndings = 'lf' | 'crlf' | 'mixed' | 'none';

export function lineEndingsOf(text: string): LineEndings {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  if (crlf === 0 && lf === 0) return 'none';
  return crlf === 0 ? 'lf' : lf === 0 ? 'crlf' : 'mixed';
}

/** The endings a merge of `local` with `theirs` (both from `base`) should have, or undefined to leave the text as merged. */
export function mergedLineEndings(base: string, local: string, theirs: string): 'lf' | 'crlf' | undefined {
  const [b, l, t] = [lineEndingsOf(base), lineEndingsOf(local), lineEndingsOf(theirs)];
  const wanted = l === b || l === 'none' ? (t === 'none' ? l : t) : l;
  return wanted === 'lf' || wanted === 'crlf' ? wanted : undefined;
}

export function withLineEndings(text: string, endings: 'lf' | 'crlf' | undefined): string {
  if (endings === 'lf') return text.replace(/\r\n/g, '\n');
  if (endings === 'crlf') return text.replace(/(?<!\r)\n/g, '\r\n');
  return text;
}
