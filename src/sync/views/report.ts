import type { EndpointStats } from '../../queue/index.js';
import type { ImageProblem } from '../../images/types.js';
import type { LinkProblem } from '../../links/index.js';
import type { ScanSkip } from '../../local/index.js';
import type { Previewed } from './decisions.js';
import type { ActionResult } from '../run/executor.js';
import type { LocalProblem } from '../observe/observe-local.js';
import type { Notice, SyncMode } from '../decide/types.js';
import { LEFT_TO_A_PERSON } from '../decide/held.js';

/** What a sync did, for people (a line per file and a summary) and for scripts (`--json`). */
export type SyncReport = {
  readonly mode: SyncMode;
  readonly dryRun: boolean;
  /** What was decided for each file that needed anything (a dry run's decisions are the run's, made with reads only). */
  readonly planned: readonly Omit<Previewed, 'assessment'>[];
  readonly results: readonly ActionResult[];
  /** Documents left for another kind of run (a push-only run leaves remote edits). */
  readonly pending: readonly { readonly path: string; readonly reason: string }[];
  /** What a person should know that changed nothing by itself (a title the service cannot rename). */
  readonly notices: readonly Notice[];
  /** Files that could not be used this run (not UTF-8, too large, bad front matter, unreadable folder). */
  readonly problems: readonly LocalProblem[];
  readonly conflictCopies: readonly string[];
  readonly skipped: readonly ScanSkip[];
  /** Links that cannot work in the knowledge base (LINK_BROKEN): in the files this run sends, or in every file with --check-links. */
  readonly links: readonly LinkProblem[];
  /** Local images the knowledge base will not show (IMAGE_NOT_PUBLISHED), in the files this run sends. */
  readonly images: readonly ImageProblem[];
  /** Images (distinct contents) uploaded by images.upload; in a dry run, those it would upload. */
  readonly imageUploads: number;
  readonly conflicts: readonly string[];
  /** Per result (`pushed`, `pulled`, `held`, `failed`...), local folders made (`folders`) and files refused (`refused`). */
  readonly counts: Readonly<Record<string, number>>;
  /** Files that did not sync: failed, held back, or refused (not UTF-8, too large, bad front matter). */
  readonly failed: number;
  /** Operations left open by an interrupted run that this run reconciled. */
  readonly resumed: number;
  /** Stopped by a signal before every planned action had started: the next run does the rest. */
  readonly interrupted: boolean;
  readonly calls: number;
  readonly callsByEndpoint: Readonly<Record<string, number>>;
  readonly durationMs: number;
};

type ReportInput = Omit<SyncReport, 'mode' | 'dryRun' | 'conflicts' | 'counts' | 'failed' | 'callsByEndpoint' | 'notices' | 'images' | 'imageUploads'> & {
  readonly images?: readonly ImageProblem[];
  readonly imageUploads?: number;
  readonly options: { readonly mode: SyncMode; readonly dryRun: boolean };
  readonly endpointCalls: Readonly<Record<string, EndpointStats>>;
  readonly notices?: readonly Notice[];
};

export function buildReport(input: ReportInput): SyncReport {
  const { options, endpointCalls, ...rest } = input;
  const counts: Record<string, number> = {};
  for (const result of input.results) {
    // A folder made locally is not a file pulled ("93 pulled" for 90 files).
    const key = !result.ok ? 'failed' : result.action === 'new-local-folder' ? 'folders' : result.result;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  // A file the scan would not sync (a second spelling of a name, a backslash) did not sync either: it is refused like an unreadable one.
  const refused = input.problems.length + input.skipped.filter((skip) => skip.code).length;
  if (refused > 0) counts['refused'] = refused;
  const callsByEndpoint = Object.fromEntries(Object.entries(endpointCalls).filter(([, s]) => s.calls > 0).map(([name, s]) => [name, s.calls]));
  return {
    ...rest,
    notices: input.notices ?? [],
    images: input.images ?? [],
    imageUploads: input.imageUploads ?? 0,
    mode: options.mode,
    dryRun: options.dryRun,
    conflicts: input.results.flatMap((r) => (r.ok && r.conflictPath ? [r.conflictPath] : [])),
    counts,
    // Not synced: failed, held, or frozen by a conflict that waits for a person (exit 1 every time, so it is seen);
    // but for a document only a person can delete, said with its URL (held.ts).
    failed: input.results.filter((r) => !r.ok || (r.result === 'held' && !LEFT_TO_A_PERSON.has(r.reason ?? '')) || r.result === 'conflict').length + refused,
    callsByEndpoint,
  };
}

/** Did everything that should have synced, sync? Held documents and unusable files count as not synced (`failed`). */
export const fullySynced = (report: SyncReport): boolean => !report.interrupted && report.failed === 0;

/**
 * The report of a run that stopped with an error: refused before it did anything (a missing root, the
 * ledger locked, a rejected token), or stopped part-way (a permission missing for every document). It
 * holds what was done before the stop, so a script reading `--json` learns it as a person reads the lines.
 */
export function stoppedReport(input: {
  readonly options: { readonly mode: SyncMode; readonly dryRun: boolean };
  readonly results: readonly ActionResult[];
  readonly endpointCalls: Readonly<Record<string, EndpointStats>>;
  readonly calls: number;
  readonly durationMs: number;
  readonly interrupted: boolean;
}): SyncReport {
  return buildReport({ ...input, planned: [], pending: [], problems: [], conflictCopies: [], skipped: [], links: [], resumed: 0 });
}
