import { diffChars, diffWordsWithSpace } from 'diff';

/*
 * The changes between a block's old plain text and the new one, as hunks of the old text (retext.ts writes
 * each into the block's source). Found word by word, as a person edits; and, where a word diff takes more
 * than the edit, character by character.
 */

/** `removed` characters of the old text at `at`, replaced by `inserted`. */
export type Hunk = { readonly at: number; readonly removed: number; readonly inserted: string };

type Part = { readonly value: string; readonly added: boolean; readonly removed: boolean };

function hunksOf(parts: readonly Part[]): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  for (const part of parts) {
    const last = hunks.at(-1);
    const open = last !== undefined && last.at + last.removed === at;
    if (part.added) {
      if (open) hunks[hunks.length - 1] = { ...last, inserted: last.inserted + part.value };
      else hunks.push({ at, removed: 0, inserted: part.value });
    } else if (part.removed) {
      if (open && last.inserted === '') hunks[hunks.length - 1] = { ...last, removed: last.removed + part.value.length };
      else hunks.push({ at, removed: part.value.length, inserted: '' });
      at += part.value.length;
    } else at += part.value.length;
  }
  return hunks;
}

/** The changes word by word: a renamed word is one hunk, written whole (in its formatting, when it has one). */
export const wordHunks = (before: string, after: string): Hunk[] => hunksOf(diffWordsWithSpace(before, after));

/** A hunk without the characters its removed and inserted text share at either end. */
export function trimmed(before: string, hunk: Hunk): Hunk {
  const removed = before.slice(hunk.at, hunk.at + hunk.removed);
  let head = 0;
  while (head < removed.length && head < hunk.inserted.length && removed[head] === hunk.inserted[head]) head++;
  let tail = 0;
  while (tail < removed.length - head && tail < hunk.inserted.length - head && removed[removed.length - 1 - tail] === hunk.inserted[hunk.inserted.length - 1 - tail]) tail++;
  return { at: hunk.at + head, removed: removed.length - head - tail, inserted: hunk.inserted.slice(head, hunk.inserted.length - tail) };
}

/** Past this many characters changed, a text is rewritten, and a character diff (its time grows with them) tells no more. */
const MAX_CHARACTER_EDITS = 256;

/**
 * The changes character by character; undefined past MAX_CHARACTER_EDITS. A word diff takes a joined or split
 * word whole, and may pair it with the wrong copy of a word: `third line here.` → `thirdline here.` is `third`
 * → `thirdline`, a space kept, `line ` removed (issue 44), where one space went; characters say so.
 */
export function characterHunks(before: string, after: string): Hunk[] | undefined {
  const parts = diffChars(before, after, { maxEditLength: MAX_CHARACTER_EDITS });
  return parts && hunksOf(parts);
}

/**
 * How much of the old text the new one keeps: what the word hunks did not change (each without the characters
 * its two sides share at its ends), or the runs of two characters or more the character hunks leave, whichever
 * is more. A word joined, split or moved (`aadd gg` → `vwyaadd gg`: the word diff removes `aadd` and adds
 * `vwyaadd `) keeps its letters; two texts share single letters by chance, not long runs of them.
 */
export function keptOf(before: string, words: readonly Hunk[], characters: readonly Hunk[] | undefined): number {
  const byWords = before.length - words.reduce((sum, hunk) => sum + trimmed(before, hunk).removed, 0);
  if (characters === undefined) return byWords;
  const runs = [...characters, { at: before.length, removed: 0, inserted: '' }].map((hunk, k) => {
    const previous = characters[k - 1];
    return hunk.at - (previous ? previous.at + previous.removed : 0);
  });
  return Math.max(byWords, runs.reduce((sum, run) => sum + (run < 2 ? 0 : run), 0));
}

/** Hunks with each removal cut at `edges` (where formatting starts or ends in the old text), so that each piece lies inside or outside it. */
export function cutAt(hunks: readonly Hunk[], edges: readonly number[]): Hunk[] {
  return hunks.flatMap((hunk) => {
    const cuts = [...new Set(edges)].filter((edge) => hunk.at < edge && edge < hunk.at + hunk.removed).sort((x, y) => x - y);
    const ends = [...cuts, hunk.at + hunk.removed];
    // What it inserts goes with its first piece: before the formatting it reaches into, or in the formatting it leaves.
    return [hunk.at, ...cuts].map((at, k) => ({ at, removed: (ends[k] as number) - at, inserted: k === 0 ? hunk.inserted : '' }));
  });
}
