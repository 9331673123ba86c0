import { redactedJson } from '../../secrets.js';
import type { SyncReport } from '../../sync/views/report.js';
import { terminal } from '../../terminal.js';
import { ExitCode } from '../exit-codes.js';
import type { OutputFormat } from './format.js';
import { annotationsOf, appendStepSummary, jobSummary, repositoryPath, workflowCommand } from './github.js';
import { summaryLines, type Verdict } from './sync-output.js';

type ReportContext = {
  readonly format: OutputFormat;
  readonly verdict: Verdict;
  readonly checkLinks: boolean;
  /** The synced root, absolute (annotations name files relative to the repository). */
  readonly root: string;
};

/** The report as `--json` prints it: `ok` and `exitCode` always, and the error that stopped the run, if one did. */
export type JsonReport = SyncReport & { readonly ok: boolean; readonly exitCode: ExitCode; readonly error?: Verdict['error'] };

const jsonReport = (report: SyncReport, verdict: Verdict): JsonReport => ({
  ...report,
  ok: verdict.exitCode === ExitCode.ok,
  exitCode: verdict.exitCode,
  ...(verdict.error ? { error: verdict.error } : {}),
});

/**
 * Prints a sync's report in the chosen format, whatever the run's end: finished, refused, stopped by an
 * error or a signal. The per-file lines were printed as each file finished; this is the summary. JSON
 * carries `ok` and `exitCode`, so a script never reads "nothing failed" from a run that exited non-zero.
 */
export function printReport(report: SyncReport, context: ReportContext): void {
  const { verdict } = context;
  if (context.format === 'json') {
    terminal.out(redactedJson(jsonReport(report, verdict)));
    return;
  }
  const lines = summaryLines(report, verdict);
  if (verdict.exitCode === ExitCode.brokenLinks) lines.push(`--check-links: ${report.links.length} broken link(s), so nothing was sent. Fix them (or the files they point to) and run again.`);
  for (const line of lines) terminal.out(line);
  if (context.format !== 'github') return;
  for (const annotation of annotationsOf(report, (rel) => repositoryPath(context.root, rel), context.checkLinks)) terminal.out(workflowCommand(annotation));
  appendStepSummary(jobSummary(report, summaryTitle(report, context)));
}

function summaryTitle(report: SyncReport, context: ReportContext): string {
  const verdict = context.verdict.exitCode === ExitCode.ok ? '✅' : '❌';
  if (report.linkCheck?.localOnly) return `${verdict} kbsync: link check`;
  return `${verdict} kbsync ${report.mode}${report.dryRun ? ' (dry run: nothing changed)' : ''}`;
}
