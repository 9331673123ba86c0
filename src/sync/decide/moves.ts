import type { LocalEntry, RecordEntry, RenameTexts } from './types.js';
import { RENAME_SIMILARITY, shapeOf, similarity, similarityBound, type TextShape } from './similarity.js';

/** How a file moved after its document is said, in the run's report and in `status` alike. */
export const movedAfterDocument = (from: string, renamedElsewhere: boolean): string =>
  `moved from ${from}, ${renamedElsewhere ? 'as another machine renamed it' : 'as its document was moved in the knowledge base'}`;

/**
 * Pairs compared by content at most (files gone × new files left after the exact pairs), as git's
 * `diff.renameLimit` bounds its own: past it, the rest is read as deletes and creates.
 */
const RENAME_PAIRS_COMPARED = 100_000;

/**
 * Finds local renames and moves: a ledger path whose file is gone, and a new unrecorded file that is
 * the same file (same inode: an `mv`) or the same bytes (a copy then delete, or an editor that
 * re-creates files; for a held file, also the bytes it was held with), or else, as git finds renames, a
 * file that keeps most of the gone file's last-synced text (`texts`; see similarity.ts): a rename and an
 * edit in one commit, laid down as a new file by a checkout. Only unambiguous pairs count: two equal
 * candidates for one file means we cannot know, and then the safe reading (a delete guarded by the
 * planner plus a create) applies.
 *
 * Returns old path → new path.
 */
export function detectMoves(missing: readonly RecordEntry[], unrecorded: readonly LocalEntry[], texts?: RenameTexts): Map<string, string> {
  const moves = new Map<string, string>();
  const taken = new Set<string>();
  // Inode first: it survives an edit made together with the move. But file systems reuse the inode of a
  // deleted file for the next new one, so a new file with another title is a new file, not this one moved.
  pair(missing, unrecorded, (record, entry) => record.ino > 0 && entry.ino === record.ino && (entry.title === undefined || entry.title === record.remoteTitle), moves, taken);
  pair(
    missing.filter((record) => !moves.has(record.path)),
    unrecorded.filter((entry) => !taken.has(entry.path)),
    // A held file has bytes no sync recorded: the ones it had when held (its row's inode may be of an older file).
    (record, entry) => entry.hash === record.localHash || (record.held !== null && record.held.localHash !== '' && entry.hash === record.held.localHash),
    moves,
    taken,
  );
  if (texts) {
    for (const [from, to] of similarPairs(
      missing.filter((record) => !moves.has(record.path)),
      unrecorded.filter((entry) => !taken.has(entry.path)),
      texts,
    )) {
      moves.set(from, to);
      taken.add(to);
    }
  }
  return moves;
}

function pair(
  records: readonly RecordEntry[],
  entries: readonly LocalEntry[],
  same: (record: RecordEntry, entry: LocalEntry) => boolean,
  moves: Map<string, string>,
  taken: Set<string>,
): void {
  for (const record of records) {
    const candidates = entries.filter((entry) => !taken.has(entry.path) && same(record, entry));
    if (candidates.length !== 1) continue;
    const [entry] = candidates as [LocalEntry];
    // The pairing must be unambiguous from the file's side too.
    if (records.filter((other) => same(other, entry)).length !== 1) continue;
    moves.set(record.path, entry.path);
    taken.add(entry.path);
  }
}

/**
 * Gone files and new files that keep at least RENAME_SIMILARITY of each other, paired where each is the
 * other's single best match (a tie pairs neither), round after round over what is left: two sections split
 * off one file pair the one that kept more of it, and the other stays new.
 */
function similarPairs(records: readonly RecordEntry[], entries: readonly LocalEntry[], texts: RenameTexts): Map<string, string> {
  const paired = new Map<string, string>();
  const shaped = <T extends { readonly path: string }>(items: readonly T[], of: ReadonlyMap<string, string>): [string, TextShape][] =>
    items.flatMap((item) => {
      const text = of.get(item.path);
      return text === undefined ? [] : [[item.path, shapeOf(text)] as [string, TextShape]];
    });
  const gone = shaped(records, texts.gone);
  const added = shaped(entries, texts.added);
  if (gone.length === 0 || added.length === 0 || gone.length * added.length > RENAME_PAIRS_COMPARED) return paired;
  const scores: Score[] = [];
  for (const [from, a] of gone) {
    for (const [to, b] of added) {
      if (similarityBound(a, b) < RENAME_SIMILARITY) continue;
      const score = similarity(a, b);
      if (score >= RENAME_SIMILARITY) scores.push({ from, to, score });
    }
  }
  for (let open = scores; open.length > 0; ) {
    const bestTo = bestOf(open, 'from', 'to');
    const bestFrom = bestOf(open, 'to', 'from');
    const round = open.filter((s) => bestTo.get(s.from) === s.to && bestFrom.get(s.to) === s.from);
    if (round.length === 0) break;
    const to = new Set<string>();
    for (const s of round) {
      paired.set(s.from, s.to);
      to.add(s.to);
    }
    open = open.filter((s) => !paired.has(s.from) && !to.has(s.to));
  }
  return paired;
}

type Score = { readonly from: string; readonly to: string; readonly score: number };

/** Each `side`'s single best match on the `other` side; a tie for the best leaves it out. */
function bestOf(scores: readonly Score[], side: 'from' | 'to', other: 'from' | 'to'): Map<string, string> {
  const top = new Map<string, { score: number; match: string | undefined }>();
  for (const s of scores) {
    const seen = top.get(s[side]);
    if (!seen || s.score > seen.score) top.set(s[side], { score: s.score, match: s[other] });
    else if (s.score === seen.score) seen.match = undefined;
  }
  const best = new Map<string, string>();
  for (const [path, { match }] of top) if (match !== undefined) best.set(path, match);
  return best;
}
