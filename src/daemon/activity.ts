import type { JsonValue } from '../ledger/index.js';

/** Ledger meta key of what the daemon last did, read by `kbsync doctor` beside it (the lock is the daemon's). */
export const ACTIVITY_KEY = 'daemon.activity';

/** The daemon's last cycle, written when it ends (never between a save and its upload). */
export type Activity = {
  readonly kind: 'sweep' | 'local' | 'probe';
  /** When it ended (ms since epoch). */
  readonly at: number;
  /** The code it failed with, or null when it went through. */
  readonly failed: string | null;
  /** When the next full sweep is due (ms since epoch), or null when remote polling is off. */
  readonly nextSweepAt: number | null;
  /** Deletes waiting for their file to stay gone (watch.deleteDelayMinutes, or a checkout). */
  readonly deletesWaiting: number;
};

export const activityJson = (activity: Activity): JsonValue => ({ ...activity });

/** The activity a ledger holds, if it is one (a damaged or older value reads as none). */
export function readActivity(value: JsonValue | undefined): Activity | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, JsonValue>;
  const kind = record['kind'];
  if ((kind !== 'sweep' && kind !== 'local' && kind !== 'probe') || typeof record['at'] !== 'number') return undefined;
  return {
    kind,
    at: record['at'],
    failed: typeof record['failed'] === 'string' ? record['failed'] : null,
    nextSweepAt: typeof record['nextSweepAt'] === 'number' ? record['nextSweepAt'] : null,
    deletesWaiting: typeof record['deletesWaiting'] === 'number' ? record['deletesWaiting'] : 0,
  };
}

const ago = (ms: number): string => (ms < 90_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`);

/** What the daemon is doing, in words: its last cycle, what waits in it, and when it next looks at the knowledge base. */
export function describeActivity(activity: Activity | undefined, waiting: number, now: number): string {
  if (!activity) return 'it has not finished a cycle yet (it is starting)';
  const parts = [
    waiting > 0 ? `syncing ${waiting} change(s)` : 'idle',
    `its last ${activity.kind} cycle ${ago(now - activity.at)} ago ${activity.failed ? `failed (${activity.failed}; its log says why)` : 'went through'}`,
  ];
  if (activity.deletesWaiting > 0) parts.push(`${activity.deletesWaiting} delete(s) waiting`);
  if (activity.nextSweepAt !== null) parts.push(`next look at the knowledge base in ${ago(activity.nextSweepAt - now)}`);
  return parts.join('; ');
}

/** Ledger meta key of the removals the daemon keeps waiting, with when each goes: `kbsync status` and `kbsync resolve` say them. */
export const WAITS_KEY = 'daemon.waits';

/**
 * One removal that waits, as the ledger keeps it: the record's path, a delete or a move (to `to`), when it goes, and
 * whether a checkout brought it (a restart keeps that, and starts the wait anew).
 */
export type WaitRecord = { readonly path: string; readonly kind: 'delete' | 'move'; readonly to?: string; readonly dueAt: number; readonly checkout: boolean };

export const waitsJson = (waits: readonly WaitRecord[]): JsonValue => waits.map(({ path, kind, to, dueAt, checkout }) => ({ path, kind, ...(to !== undefined ? { to } : {}), dueAt, checkout }));

/** The waits a ledger holds, by path (a damaged or older value reads as none). */
export function readWaits(value: JsonValue | undefined): Map<string, WaitRecord> {
  const waits = new Map<string, WaitRecord>();
  if (!Array.isArray(value)) return waits;
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const { path, kind, to, dueAt, checkout } = item;
    if (typeof path !== 'string' || (kind !== 'delete' && kind !== 'move') || typeof dueAt !== 'number') continue;
    waits.set(path, { path, kind, ...(typeof to === 'string' ? { to } : {}), dueAt, checkout: checkout === true || kind === 'move' });
  }
  return waits;
}
