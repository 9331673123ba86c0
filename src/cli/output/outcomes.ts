import type { SyncReport } from '../../sync/report.js';
import type { DecisionKind } from '../../sync/decide/types.js';

/** What a run did (or, dry, would do) to one file's document, in the words of a publishing report. */
type Outcome = 'created' | 'updated' | 'deleted' | 'held' | 'failed' | 'pulled' | 'recorded' | 'unchanged' | 'other';

type OutcomeRow = { readonly path: string; readonly outcome: Outcome; readonly detail: string };

const CREATES: ReadonlySet<DecisionKind> = new Set(['create', 'recreate']);
const UPDATES: ReadonlySet<DecisionKind> = new Set(['push', 'merge', 'move']);
const PULLS: ReadonlySet<DecisionKind> = new Set(['pull', 'new-local', 'restore', 'move-local']);

function plannedOutcome(kind: DecisionKind): Outcome {
  if (CREATES.has(kind)) return 'created';
  if (UPDATES.has(kind)) return 'updated';
  if (kind === 'delete-remote') return 'deleted';
  if (kind === 'held') return 'held';
  if (PULLS.has(kind)) return 'pulled';
  return 'other';
}

/** One row per file the run touched, failed or held (or, for a dry run, planned): the per-file table of a summary. */
export function outcomeRows(report: SyncReport): OutcomeRow[] {
  if (report.dryRun) return report.planned.map((d) => ({ path: d.path, outcome: plannedOutcome(d.kind), detail: d.reason ?? d.note ?? '' }));
  return report.results.flatMap((result): OutcomeRow[] => {
    if (!result.ok) return [{ path: result.path, outcome: 'failed', detail: `${result.error} [${result.code}]` }];
    const detail = result.detail ?? '';
    if (result.result === 'held') return [{ path: result.path, outcome: 'held', detail }];
    if (result.action === 'delete-remote') return [{ path: result.path, outcome: 'deleted', detail }];
    if (result.result === 'unchanged') return detail ? [{ path: result.path, outcome: 'unchanged', detail }] : [];
    if (result.result === 'recorded') return [{ path: result.path, outcome: 'recorded', detail }];
    if (result.result === 'pulled') return [{ path: result.path, outcome: 'pulled', detail }];
    return [{ path: result.path, outcome: CREATES.has(result.action) ? 'created' : 'updated', detail: result.result === 'pushed' ? detail : `${result.result}${detail ? `: ${detail}` : ''}` }];
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
