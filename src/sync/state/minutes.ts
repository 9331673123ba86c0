/**
 * The service's minute stamps. A document's modifiedTime has minute precision (`2026-11-22T10:05Z`), and
 * kbsync knows the service's clock only from its answers' Date headers (to the second).
 */

/** The service's minute stamp (`2026-11-22T10:05Z`) of a moment. */
export const minuteOf = (epochMs: number): string => `${new Date(epochMs).toISOString().slice(0, 16)}Z`;

/** `2026-11-22T10:05Z` is over once the clock reads 10:06 or later. Unparseable times are never over. */
export function minutePassed(modifiedTime: string, now: Date): boolean {
  const at = Date.parse(modifiedTime);
  if (Number.isNaN(at)) return false;
  return now.getTime() >= at + 60_000;
}

/**
 * Could a write stamped `modifiedTime` have been made less than a minute before `now`? Its stamp's minute holds
 * it anywhere up to the next one, so until a minute after that minute is over. Unparseable times: no.
 */
export function underAMinuteOld(modifiedTime: string, now: Date): boolean {
  const at = Date.parse(modifiedTime);
  return !Number.isNaN(at) && now.getTime() < at + 2 * 60_000;
}

/** Was `modifiedTime` stamped in the last few minutes before `now` (its minute, or the two after it)? A document being written. */
export function stampedLately(modifiedTime: string, now: Date): boolean {
  const at = Date.parse(modifiedTime);
  return !Number.isNaN(at) && now.getTime() < at + 3 * 60_000;
}

/** The latest minute the service can stamp a write made right after `epochMs` on its clock as last heard (a Date header may lag a second). */
export const latestMinuteAfter = (epochMs: number): string => minuteOf(epochMs + 1000);
