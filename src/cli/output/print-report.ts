import { redactValue } from '../../secrets.js';
import type { SyncReport } from '../../sync/report.js';
import { ExitCode } from '../exit-codes.js';
import type { OutputFormat } from './format.js';
import { annotationsOf, appendStepSummary, jobSummary, repositoryPath, workflowCommand } from './github.js';
import { summaryLines } from './sync-output.js';

export type ReportContext = {
  readonly format: OutputFormat;
  readonly exitCode: ExitCode;
  readonly checkLinks: boolean;
  /** The synced root, absolute (annotations name files relative to the repository). */
  readonly root: string;
  /** Lines already printed as the run went (one per file). */
  readonly lines: readonly string[];
};

/**
 * Prints a sync's report in the chosen format. JSON carries `ok` and `exitCode`, so a script never reads
 * "nothing failed" from a run that exited non-zero.
 */
export function printReport(report: SyncReport, context: ReportContext): void {
  if (context.format === 'json') {
    process.stdout.write(`${JSON.stringify(redactValue({ ...report, ok: context.exitCode === ExitCode.ok, exitCode: context.exitCode }))}\n`);
    return;
  }
  const lines = [...context.lines, ...summaryLines(report)];
  if (context.exitCode === ExitCode.brokenLinks) lines.push(`--check-links: ${report.links.length} broken link(s), so nothing was sent. Fix them (or the files they point to) and run again.`);
  for (const line of lines) console.log(line);
  if (context.format !== 'github') return;
  for (const annotation of annotationsOf(report, (rel) => repositoryPath(context.root, rel), context.checkLinks)) console.log(workflowCommand(annotation));
  appendStepSummary(jobSummary(report, summaryTitle(report, context)));
}

function summaryTitle(report: SyncReport, context: ReportContext): string {
  const verdict = context.exitCode === ExitCode.ok ? '✅' : '❌';
  if (report.dryRun && report.planned.length === 0 && report.calls === 0 && context.checkLinks) return `${verdict} kbsync: link check`;
  return `${verdict} kbsync ${report.mode}${report.dryRun ? ' (dry run: nothing changed)' : ''}`;
}
