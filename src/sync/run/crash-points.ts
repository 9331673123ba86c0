/**
 * Named crash points, for the crash matrix: with `KBSYNC_CRASH_AT=<point>` (optionally
 * `<point>:<n>` to crash at the n-th time the point is reached) the process kills itself with
 * SIGKILL right there, so the tests can prove that a rerun converges with nothing lost or duplicated.
 * Without the variable every point is inert.
 */
export const CRASH_POINTS = [
  'after-intent',
  'after-create',
  'before-id-append',
  'after-overwrite',
  'after-local-write',
  'before-ledger-commit',
  'mid-pull',
  'after-id-append',
  'before-publish',
  'after-state-append',
  'mid-compaction',
] as const;
type CrashPoint = (typeof CRASH_POINTS)[number];

const wanted = parse(process.env['KBSYNC_CRASH_AT']);
let reached = 0;

function parse(value: string | undefined): { point: CrashPoint; nth: number } | undefined {
  if (!value) return undefined;
  const [point, nth] = value.split(':');
  if (!CRASH_POINTS.includes(point as CrashPoint)) {
    throw new Error(`KBSYNC_CRASH_AT=${value}: unknown crash point; use one of ${CRASH_POINTS.join(', ')}`);
  }
  return { point: point as CrashPoint, nth: nth ? Number(nth) : 1 };
}

export function crashPoint(point: CrashPoint): void {
  if (wanted?.point !== point) return;
  reached += 1;
  if (reached === wanted.nth) process.kill(process.pid, 'SIGKILL');
}
