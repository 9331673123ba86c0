/**
 * The shared state's bounds: how long a retired document stays, and how much of the state one run reads.
 * Anyone who can edit the workspace writes the state folder, so every read of it has a limit.
 */

/**
 * How long a retired state document stays (and is read) before a compaction deletes it: see compaction.ts.
 * `KBSYNC_STATE_GRACE_MS` (for tests, like KBSYNC_CRASH_AT) sets it, so a randomized run decides by its seed
 * which runs see a compaction's grace period over: 0 for a run "long after" (writers then confirm their
 * target before every append), up to a day for the others.
 */
export const GRACE_MS = graceMs(process.env['KBSYNC_STATE_GRACE_MS']);

function graceMs(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isInteger(n) && n >= 0 && n <= 24 * 60 * 60 * 1000 ? n : 600_000;
}

/** Most index documents one run reads (a compacted state of 20,000 files needs about 60), and sources documents. */
export const MAX_DOCS_READ = 96;
/** Most characters read from one state document: kbsync writes at most 50,000 (the service takes no more in one overwrite). */
export const MAX_DOC_CHARS = 100_000;
/** Documents in a row holding nothing kbsync wrote after which a run reads no more of the state folder. */
export const MAX_JUNK_DOCS = 8;
/** Most records one run folds. */
export const MAX_RECORDS = 400_000;
