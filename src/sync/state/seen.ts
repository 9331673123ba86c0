import type { TreeNodeId } from '../../model/ids.js';
import { minutePassed } from './minutes.js';

/**
 * What a run remembers of the shared state's index after acting on all of it: the index documents' times as
 * listed (a fingerprint), so the next run reads the state only when they moved. A time whose minute was not
 * over yet (`open`) may still hide another writer's append in that same minute (times have minute
 * precision): once that minute is over, the state is read once more, then trusted until it moves again.
 */
type StateSeen = { readonly fingerprint: string; readonly open?: string };

export const stateSeenKey = (rootId: TreeNodeId): string => `state.seen:${rootId}`;

/** Whether the index, listed with `fingerprint` now, holds nothing the last run that read it did not act on. */
export function stateUnchanged(remembered: unknown, fingerprint: string, now: Date): boolean {
  if (typeof remembered !== 'object' || remembered === null) return false;
  const seen = remembered as Partial<StateSeen>;
  if (seen.fingerprint !== fingerprint) return false;
  return seen.open === undefined || !minutePassed(seen.open, now);
}

/** What to remember of a fingerprint acted on at `now`: its latest minute stays open until it is over. */
export function stateSeen(fingerprint: string, now: Date): StateSeen {
  const times = (JSON.parse(fingerprint) as [string, string][]).map(([, time]) => time);
  const latest = times.reduce((a, b) => (b > a ? b : a), '');
  return latest !== '' && !minutePassed(latest, now) ? { fingerprint, open: latest } : { fingerprint };
}
