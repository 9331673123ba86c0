import type { SyncReport } from '../../sync/views/report.js';
import type { DecisionKind } from '../../sync/decide/types.js';

/** What a run did (or, dry, would do) to one file's document, in the words of a publishing report. */
type Outcome = 'created' | 'updated' | 'deleted' | 'held' | 'failed' | 'pulled' | 'recorded' | 'unchanged' | 'other';

type OutcomeRow = { readonly path: string; readonly outcome: Outcome; readonly detail: string };

/**
 * What each decision comes to in a publishing report, planned (a dry run) or done. Exhaustive, so a new kind
 * of decision does not compile until it is counted somewhere.
 */
const OUTCOME: Readonly<Record<DecisionKind, Outcome>> = {
  create: 'created',
  recreate: 'created',
  push: 'updated',
  merge: 'updated',
  move: 'updated',
  'delete-remote': 'deleted',
  held: 'held',
  pull: 'pulled',
  'new-local': 'pulled',
  restore: 'pulled',
  'move-local': 'pulled',
  none: 'other',
  link: 'other',
  conflict: 'other',
  'trash-local': 'other',
  forget: 'other',
  'trash-leftover': 'other',
  rename: 'other',
  'new-local-folder': 'other',
};

/** One row per file the run touched, failed or held (or, for a dry run, planned): the per-file table of a summary. */
export function outcomeRows(report: SyncReport): OutcomeRow[] {
  if (report.dryRun) return report.planned.map((d) => ({ path: d.path, outcome: OUTCOME[d.kind], detail: d.reason ?? d.note ?? '' }));
  return report.results.flatMap((result): OutcomeRow[] => {
    if (!result.ok) return [{ path: result.path, outcome: 'failed', detail: `${result.error} [${result.code}]` }];
    const detail = result.detail ?? '';
    if (result.result === 'held') return [{ path: result.path, outcome: 'held', detail }];
    if (result.action === 'delete-remote') return [{ path: result.path, outcome: 'deleted', detail }];
    if (result.result === 'unchanged') return detail ? [{ path: result.path, outcome: 'unchanged', detail }] : [];
    if (result.result === 'recorded') return [{ path: result.path, outcome: 'recorded', detail }];
    if (result.result === 'pulled') return [{ path: result.path, outcome: 'pulled', detail }];
    return [{ path: result.path, outcome: OUTCOME[result.action] === 'created' ? 'created' : 'updated', detail: result.result === 'pushed' ? detail : `${result.result}${detail ? `: ${detail}` : ''}` }];
  });
}

type OutcomeCounts = Readonly<Record<'created' | 'updated' | 'deleted' | 'held' | 'failed' | 'refused' | 'brokenLinks', number>>;

export function outcomeCounts(report: SyncReport, rows: readonly OutcomeRow[] = outcomeRows(report)): OutcomeCounts {
  const count = (outcome: Outcome): number => rows.filter((row) => row.outcome === outcome).length;
  return {
    created: count('created'),
    updated: count('updated'),
    deleted: count('deleted'),
    held: count('held'),
    failed: count('failed'),
    refused: report.counts['refused'] ?? 0,
    brokenLinks: report.links.length,
  };
}
