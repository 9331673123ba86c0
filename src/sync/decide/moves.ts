import type { LocalEntry, RecordEntry } from './types.js';

/** How a file moved after its document is said, in the run's report and in `status` alike. */
export const movedAfterDocument = (from: string, renamedElsewhere: boolean): string =>
  `moved from ${from}, ${renamedElsewhere ? 'as another machine renamed it' : 'as its document was moved in the knowledge base'}`;

/**
 * Finds local renames and moves: a ledger path whose file is gone, and a new unrecorded file that is
 * the same file (same inode: an `mv`) or the same bytes (a copy then delete, or an editor that
 * re-creates files; for a held file, also the bytes it was held with). Only unambiguous pairs count: two
 * candidates for one file means we cannot know, and then the safe reading (a delete guarded by the planner
 * plus a create) applies.
 *
 * Returns old path → new path.
 */
export function detectMoves(
  missing: readonly RecordEntry[],
  unrecorded: readonly LocalEntry[],
): Map<string, string> {
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
