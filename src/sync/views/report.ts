import type { EndpointStats } from '../../queue/index.js';
import type { ImageProblem } from '../../images/types.js';
import type { LinkCheck, LinkProblem } from '../../links/index.js';
import type { ScanSkip } from '../../local/index.js';
import type { Previewed } from './decisions.js';
import type { ActionResult } from '../run/executor.js';
import type { LocalProblem } from '../observe/observe-local.js';
import type { Notice, SyncMode } from '../decide/types.js';
import { doneRow, plannedRow, publishCounts, type OutcomeRow, type PublishCounts } from './outcomes.js';
import { countedAs } from './vocabulary.js';

export type NoteEmbeds = readonly { readonly path: string; readonly count: number }[];

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
  /** With --check-links: what the check covered, and what it found. */
  readonly linkCheck?: LinkCheckReport;
  /** Local images the knowledge base will not show (IMAGE_NOT_PUBLISHED), in the files this run sends. */
  readonly images: readonly ImageProblem[];
  /** Images (distinct contents) uploaded by images.upload; in a dry run, those it would upload. */
  readonly imageUploads: number;
  /** A vault's files whose embedded notes (`![[Note]]`) went, or would go, as links: the log names a few, this all. */
  readonly noteEmbeds: NoteEmbeds;
  readonly conflicts: readonly string[];
  /** Per result (`pushed`, `pulled`, `held`, `failed`...), documents moved (`moved`), local folders made (`folders`) and files refused (`refused`). */
  readonly counts: Readonly<Record<string, number>>;
  /**
   * What the run did (a dry run: would do) to the knowledge base, each file counted once: the counts of the job
   * summary and the pull-request preview.
   */
  readonly outcomes: PublishCounts;
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

/**
 * What a link check (`--check-links`) covered: the synced files it read, the links in them (`external`: how many
 * go to other sites, left alone), and the broken ones, by reason. `localOnly`: checked from the files alone (no
 * token or service settings), so no plan of what a run would send was made.
 */
export type LinkCheckReport = {
  readonly files: number;
  readonly links: number;
  readonly external: number;
  readonly broken: number;
  readonly byReason: Readonly<Partial<Record<LinkProblem['reason'], number>>>;
  readonly localOnly: boolean;
};

/** A link check's report, from what the linker checked. */
export function linkCheckReport(check: LinkCheck, localOnly: boolean): LinkCheckReport {
  const byReason: Partial<Record<LinkProblem['reason'], number>> = {};
  for (const problem of check.problems) byReason[problem.reason] = (byReason[problem.reason] ?? 0) + 1;
  return { files: check.files, links: check.links, external: check.external, broken: check.problems.length, byReason, localOnly };
}

type ReportInput = Omit<SyncReport, 'mode' | 'dryRun' | 'conflicts' | 'counts' | 'outcomes' | 'failed' | 'callsByEndpoint' | 'notices' | 'images' | 'imageUploads' | 'noteEmbeds'> & {
  readonly images?: readonly ImageProblem[];
  readonly imageUploads?: number;
  readonly noteEmbeds?: NoteEmbeds;
  readonly options: { readonly mode: SyncMode; readonly dryRun: boolean };
  readonly endpointCalls: Readonly<Record<string, EndpointStats>>;
  readonly notices?: readonly Notice[];
};

export function buildReport(input: ReportInput): SyncReport {
  const { options, endpointCalls, ...rest } = input;
  const counts: Record<string, number> = {};
  for (const result of input.results) {
    // Each under its own word: a folder made locally is not a file pulled ("93 pulled" for 90 files), a move not a push.
    const key = !result.ok ? 'failed' : result.result === 'held' ? 'held' : (countedAs(result.action) ?? result.result);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  // A file the scan would not sync (a second spelling of a name, a backslash) did not sync either: it is refused like an unreadable one.
  // A refusal said before for the same bytes is listed, not failed again (observe/refusals.ts).
  const repeated = input.problems.filter((problem) => problem.repeated).length;
  const refused = input.problems.length - repeated + input.skipped.filter((skip) => skip.code).length;
  if (refused > 0) counts['refused'] = refused;
  if (repeated > 0) counts['still refused, unchanged'] = repeated;
  const callsByEndpoint = Object.fromEntries(Object.entries(endpointCalls).filter(([, s]) => s.calls > 0).map(([name, s]) => [name, s.calls]));
  return {
    ...rest,
    notices: input.notices ?? [],
    images: input.images ?? [],
    imageUploads: input.imageUploads ?? 0,
    noteEmbeds: input.noteEmbeds ?? [],
    mode: options.mode,
    dryRun: options.dryRun,
    conflicts: input.results.flatMap((r) => (r.ok && r.conflictPath ? [r.conflictPath] : [])),
    counts,
    outcomes: publishCounts(outcomeRows({ ...input, dryRun: options.dryRun }), refused, input.links.length),
    // Not synced: failed, held, or frozen by a conflict that waits for a person (exit 1 every time, so it is seen).
    failed: input.results.filter((r) => !r.ok || r.result === 'held' || r.result === 'conflict').length + refused,
    callsByEndpoint,
  };
}

/** One row per file the run touched, failed or held (or, for a dry run, planned): the per-file table of a summary. */
export const outcomeRows = (report: Pick<SyncReport, 'dryRun' | 'planned' | 'results'>): OutcomeRow[] =>
  report.dryRun ? report.planned.map(plannedRow) : report.results.flatMap((result) => doneRow(result) ?? []);

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
