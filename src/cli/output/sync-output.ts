import { imageLine } from '../../images/problem-line.js';
import type { ActionResult } from '../../sync/run/executor.js';
import type { ObservePhase } from '../../sync/observe/observe.js';
import type { SyncReport } from '../../sync/views/report.js';
import type { Terminal } from '../../terminal.js';
import { ExitCode } from '../exit-codes.js';
import { decisionLine, wouldDo } from '../../sync/views/vocabulary.js';
import { linkCheckLine, linkLines } from './link-lines.js';

const SYMBOL: Record<string, string> = {
  pushed: '↑',
  pulled: '↓',
  merged: '⇅',
  conflict: '!',
  held: '…',
  unchanged: '=',
};

/** One line per file that changed (or failed), printed as soon as that file is done. */
export function resultLine(result: ActionResult): string | undefined {
  if (!result.ok) return `✗ ${result.path}: ${result.error} [${result.code}]`;
  if (result.result === 'unchanged' && !result.detail) return undefined;
  const detail = result.detail ? ` (${result.detail})` : '';
  const copy = result.conflictPath ? ` — other version in ${result.conflictPath}` : '';
  return `${SYMBOL[result.result] ?? '·'} ${result.path}${detail}${copy}`;
}

/** How a run ended, as the CLI decided it: its exit code, and the error that stopped it, if one did. */
export type Verdict = { readonly exitCode: ExitCode; readonly error?: { readonly code: string; readonly message: string } };

/** The last line of a report: what was done in numbers, and how the run ended when it did not just finish. */
function totalLine(report: SyncReport, verdict: Verdict): string {
  const { unchanged = 0, ...done } = report.counts;
  const words = Object.entries(done).map(([k, v]) => `${v} ${k === 'folders' ? (v === 1 ? 'folder made' : 'folders made') : k}`);
  // Documents read again to be sure (written within the service's last minute): no change, so not listed as one.
  if (unchanged > 0) words.push(`${unchanged} checked, unchanged`);
  if (report.imageUploads > 0) words.push(`${report.imageUploads} image(s) ${report.dryRun ? 'to upload' : 'uploaded'}`);
  if (report.resumed > 0) words.push(`${report.resumed} interrupted operation(s) of an earlier run finished`);
  const counts = words.join(', ') || 'nothing to change';
  const cost = `${report.calls} API call(s) in ${(report.durationMs / 1000).toFixed(1)} s`;
  if (verdict.error) {
    const none = report.results.length === 0;
    return `${none ? 'Nothing was done' : `Stopped after: ${counts}`}: the run ${none ? 'was refused' : 'stopped'} with ${verdict.error.code} (exit ${verdict.exitCode}); ${cost}.`;
  }
  if (verdict.exitCode === ExitCode.interrupted || verdict.exitCode === ExitCode.terminated) {
    return `Stopped by ${verdict.exitCode === ExitCode.interrupted ? 'Ctrl+C' : 'SIGTERM'} (exit ${verdict.exitCode}): ${counts}; the next sync does the rest; ${cost}.`;
  }
  const uploads = report.imageUploads > 0 ? [`${report.imageUploads} image(s) to upload`] : [];
  if (report.linkCheck?.localOnly) return `Checked from the files alone (no plan of what a sync would send); nothing was sent; ${cost}.`;
  return report.dryRun ? `Dry run: ${wouldDo(report.planned, uploads)}; nothing was changed; ${cost}.` : `Synced: ${counts}; ${cost}.`;
}

/** The summary printed after the per-file lines: what waits, what could not be used, and the totals. */
export function summaryLines(report: SyncReport, verdict: Verdict = { exitCode: ExitCode.ok }): string[] {
  const lines: string[] = [];
  // A link check from the files alone made no plan; one with a plan and nothing in it says what it checked instead.
  if (report.dryRun && !verdict.error && (report.planned.length > 0 || !report.linkCheck)) {
    lines.push(report.planned.length === 0 ? 'Nothing to do.' : `Would do ${report.planned.length} action(s):`);
    for (const action of report.planned) lines.push(decisionLine(action));
  }
  for (const item of report.pending) lines.push(`… ${item.path}: ${item.reason}`);
  for (const notice of report.notices) lines.push(`i ${notice.path}: ${notice.message} [${notice.code}]`);
  for (const problem of report.problems) lines.push(`${problem.repeated ? '- ' : '✗ '}${problem.path}: ${problem.repeated ? 'still not synced, unchanged since it was said: ' : ''}${problem.message} [${problem.code}]`);
  // Not synced on purpose (symlinks, special files, a second spelling of one name): say so, or the file silently never syncs.
  for (const skip of report.skipped) lines.push(skip.code ? `✗ ${skip.path}: not synced: ${skip.reason} [${skip.code}]` : `- ${skip.path}: not synced: ${skip.reason}`);
  lines.push(...linkLines(report.links));
  if (report.linkCheck) lines.push(linkCheckLine(report.linkCheck));
  for (const image of report.images) lines.push(`! ${imageLine(image)}`);
  if (report.conflictCopies.length > 0) lines.push(`! ${report.conflictCopies.length} conflict cop${report.conflictCopies.length === 1 ? 'y' : 'ies'} to resolve: ${report.conflictCopies.join(', ')}`);
  lines.push(totalLine(report, verdict));
  return lines;
}

type Progress = {
  phase(phase: ObservePhase): void;
  /** The plan is made: `count` actions, `checks` of which only re-read a document to confirm it unchanged. */
  start(count: number, checks: number): void;
  done(result: ActionResult): void;
  stop(): void;
};

const BAR_WIDTH = 20;

/**
 * The terminal's status line during a sync: what is being observed, then a bar of the files worked on.
 * Documents only re-read to confirm them unchanged are not files worked on, so they are not counted.
 * Nothing at all for scripts, CI and logs (the terminal draws no status line there).
 */
export function createProgress(terminal: Terminal, enabled: boolean): Progress {
  let total = 0;
  let done = 0;
  let checks = 0;
  const show = (text: string): void => {
    if (enabled) terminal.status(text);
  };
  const bar = (): void => {
    const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
    const reread = checks > 0 ? ` (re-reading ${checks} recently written document(s))` : '';
    show(`syncing [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${done}/${total} files${reread}`);
  };
  return {
    phase(phase) {
      if (phase.step === 'scanning') show('scanning the folder…');
      else show(`listing the knowledge base: ${phase.folders} of ${phase.expected === undefined ? '?' : `~${Math.max(phase.expected, phase.folders)}`} folders…`);
    },
    start(count, checkCount) {
      total = count - checkCount;
      checks = checkCount;
      bar();
    },
    done(result) {
      if (result.action === 'none') checks = Math.max(0, checks - 1);
      else {
        done += 1;
        total = Math.max(total, done); // a re-read that found a change became work
      }
      bar();
    },
    stop: () => {
      if (enabled) terminal.status(undefined);
    },
  };
}
