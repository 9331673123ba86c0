import type { ActionResult } from '../run/executor.js';
import type { Decided } from './decisions.js';
import { effectOf, type Effect } from './vocabulary.js';

/** What a run did (or, dry, would do) to one file's document, as a publishing report counts it. */
export type Outcome = Effect | 'failed';

export type OutcomeRow = { readonly path: string; readonly from?: string; readonly outcome: Outcome; readonly detail: string };

/** Results whose word the row's outcome does not already say (`merged`, not `updated` alone). */
const SAID_BY_OUTCOME: ReadonlySet<string> = new Set(['pushed', 'pulled', 'held', 'unchanged']);

/** A decision made with reads only (a dry run, a preview): the row the run's result for it would give. */
export function plannedRow(decided: Decided & { readonly error?: { readonly code: string; readonly message: string } }): OutcomeRow {
  const from = decided.from === undefined ? {} : { from: decided.from };
  if (decided.error) return { path: decided.path, ...from, outcome: 'failed', detail: `${decided.error.message} [${decided.error.code}]` };
  return { path: decided.path, ...from, outcome: effectOf(decided.kind), detail: decided.note ?? decided.reason ?? '' };
}

/** A decision carried out: its row, or none for a check that found nothing to do and says nothing. */
export function doneRow(result: ActionResult): OutcomeRow | undefined {
  if (!result.ok) return { path: result.path, outcome: 'failed', detail: `${result.error} [${result.code}]` };
  const detail = result.detail ?? '';
  if (result.action === 'none' && detail === '') return undefined;
  const said = SAID_BY_OUTCOME.has(result.result) ? detail : `${result.result}${detail ? `: ${detail}` : ''}`;
  // Counted by its decision, as every preview counts it: what only carrying it out found (a file that followed its
  // document, then a hold of its body) is in the detail.
  return { path: result.path, ...(result.from === undefined ? {} : { from: result.from }), outcome: effectOf(result.action), detail: said };
}

/** What a publishing report counts: each file once, in the column of what it does to the knowledge base. */
export type PublishCounts = Readonly<Record<'created' | 'updated' | 'moved' | 'renamed' | 'deleted' | 'held' | 'failed' | 'refused' | 'brokenLinks', number>>;

/** The columns of every publishing report's table (the pull-request preview, the job summary), in order. */
export const PUBLISH_COLUMNS: readonly (readonly [keyof PublishCounts, string])[] = [
  ['created', 'Created'],
  ['updated', 'Updated'],
  ['moved', 'Moved'],
  ['renamed', 'Renamed'],
  ['deleted', 'Deleted'],
  ['held', 'Held'],
  ['failed', 'Failed'],
  ['refused', 'Refused'],
  ['brokenLinks', 'Broken links'],
];

/** The counts of a publishing report: rows by outcome, files refused (not UTF-8, bad front matter...), broken links. */
export function publishCounts(rows: readonly Pick<OutcomeRow, 'outcome'>[], refused: number, brokenLinks: number): PublishCounts {
  const count = (outcome: Outcome): number => rows.filter((row) => row.outcome === outcome).length;
  return {
    created: count('created'),
    updated: count('updated'),
    moved: count('moved'),
    renamed: count('renamed'),
    deleted: count('deleted'),
    held: count('held'),
    failed: count('failed'),
    refused,
    brokenLinks,
  };
}
