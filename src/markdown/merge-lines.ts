import { LCS, diff3Merge, type ILCSResult } from 'node-diff3';

/**
 * Both sides' edits of one block, merged line by line as git (and `kbsync resolve`) merges a file: the block with
 * both edits when they changed different lines of it, none next to the other; undefined where they changed the
 * same lines, or neighbouring ones, differently (a clash, left for a person). A paragraph's lines are its
 * sentences as written: a word changed on one and another on the next line is no clash (soak seed 502: a
 * colleague's words on the third line of a paragraph whose first line had a word of ours opened a conflict that
 * `kbsync resolve` then settled without a question).
 * The words are merged without the lines' carriage returns: a side that changed only how its lines end (CRLF
 * for LF: a file saved on another system) changed no line's words, and the lines end as the side that changed
 * them ends them (soak seed 727: a file's line endings mixed here and a colleague's words in the same paragraph
 * opened a conflict `kbsync resolve` listed no clash of; merged with them, a line deleted there came back).
 */
export function mergeLines(base: string, ours: string, theirs: string): string | undefined {
  const [b, o, t] = [base, ours, theirs].map(linesOf) as [Lines, Lines, Lines];
  const words = mergeSplit(o.words, b.words, t.words);
  if (words === undefined) return undefined;
  const oursEnds = endsChanged(b, o);
  const theirsEnds = endsChanged(b, t);
  // Both changed their line endings, differently: which to keep is the person's call, as for any clash.
  if (oursEnds && theirsEnds && endsChanged(o, t)) return undefined;
  return endedAs(words, theirsEnds && !oursEnds ? t : o).join('\n');
}

function mergeSplit(ours: readonly string[], base: readonly string[], theirs: readonly string[]): string[] | undefined {
  const lines: string[] = [];
  for (const part of diff3Merge([...ours], [...base], [...theirs])) {
    if (!part.ok) return undefined;
    lines.push(...part.ok);
  }
  return lines;
}

/** A block's lines without their carriage returns, and which of them had one. */
type Lines = { readonly words: readonly string[]; readonly crlf: readonly boolean[] };

function linesOf(text: string): Lines {
  const lines = text.split('\n');
  return { words: lines.map((line) => line.replace(/\r$/, '')), crlf: lines.map((line) => line.endsWith('\r')) };
}

/** The lines of `to` that kept their words from `from`, each as [its index in from, its index in to]. */
function kept(from: readonly string[], to: readonly string[]): [number, number][] {
  const pairs: [number, number][] = [];
  for (let link: ILCSResult | null = LCS([...from], [...to]); link; link = link.chain) if (link.buffer1index >= 0) pairs.push([link.buffer1index, link.buffer2index]);
  return pairs;
}

/** Some line `to` kept from `from` ends otherwise there. */
const endsChanged = (from: Lines, to: Lines): boolean => kept(from.words, to.words).some(([i, j]) => from.crlf[i] !== to.crlf[j]);

/**
 * The merged lines ended as `side` ends its lines: each it has as it ends it, each the other side brought as
 * most of its lines end, and the last as its last (a block's last line ends outside it, in the gap after it).
 */
function endedAs(words: readonly string[], side: Lines): string[] {
  const inner = side.crlf.slice(0, -1);
  const most = inner.filter(Boolean).length * 2 > inner.length;
  const ends = words.map(() => most);
  // The side's last line ends in the gap after the block: followed by a line here, it ends as most do.
  for (const [i, j] of kept(side.words, words)) if (i < side.crlf.length - 1) ends[j] = side.crlf[i] === true;
  ends[ends.length - 1] = side.crlf.at(-1) === true;
  return words.map((line, i) => (ends[i] === true ? `${line}\r` : line));
}
