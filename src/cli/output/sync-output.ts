import { SingleBar, Presets } from 'cli-progress';
import type { ActionResult } from '../../sync/executor.js';
import type { SyncReport } from '../../sync/report.js';

const SYMBOL: Record<string, string> = {
  pushed: '↑',
  pulled: '↓',
  merged: '⇅',
  conflict: '!',
  held: '…',
  unchanged: '=',
};

/** One line per file that changed (or failed), as the sync goes. */
export function resultLine(result: ActionResult): string | undefined {
  if (!result.ok) return `✗ ${result.path}: ${result.error}`;
  if (result.result === 'unchanged' && !result.detail) return undefined;
  const detail = result.detail ? ` (${result.detail})` : '';
  const copy = result.conflictPath ? ` — other version in ${result.conflictPath}` : '';
  return `${SYMBOL[result.result] ?? '·'} ${result.path}${detail}${copy}`;
}

export function summaryLines(report: SyncReport): string[] {
  const lines: string[] = [];
  if (report.dryRun) {
    lines.push(report.planned.length === 0 ? 'Nothing to do.' : `Would do ${report.planned.length} action(s):`);
    for (const action of report.planned) lines.push(`  ${action.kind.padEnd(16)} ${action.path}`);
  }
  for (const item of report.pending) lines.push(`… ${item.path}: ${item.reason}`);
  for (const notice of report.notices) lines.push(`i ${notice.path}: ${notice.message} [${notice.code}]`);
  for (const problem of report.problems) lines.push(`✗ ${problem.path}: ${problem.message} [${problem.code}]`);
  // Not synced on purpose (symlinks, special files, a second spelling of one name): say so, or the file silently never syncs.
  for (const skip of report.skipped) lines.push(skip.code ? `✗ ${skip.path}: not synced: ${skip.reason} [${skip.code}]` : `- ${skip.path}: not synced: ${skip.reason}`);
  for (const link of report.links) lines.push(`✗ ${link.path}:${link.line}: broken link "${link.target}": ${link.message} [LINK_BROKEN]`);
  if (report.conflictCopies.length > 0) lines.push(`! ${report.conflictCopies.length} conflict cop${report.conflictCopies.length === 1 ? 'y' : 'ies'} to resolve: ${report.conflictCopies.join(', ')}`);
  const counts = Object.entries(report.counts).map(([k, v]) => `${v} ${k === 'folders' ? (v === 1 ? 'folder made' : 'folders made') : k}`).join(', ') || 'no changes';
  lines.push(`${report.dryRun ? 'Dry run' : 'Synced'}: ${counts}; ${report.calls} API call(s) in ${(report.durationMs / 1000).toFixed(1)} s.`);
  return lines;
}

/** A progress bar for people at a terminal; nothing at all for scripts, CI and logs. */
export function createProgress(enabled: boolean): { start(total: number): void; tick(): void; stop(): void } {
  if (!enabled) return { start() {}, tick() {}, stop() {} };
  const bar = new SingleBar({ format: 'syncing [{bar}] {value}/{total}', clearOnComplete: true, stream: process.stderr }, Presets.shades_classic);
  let started = false;
  return {
    start(total) {
      if (total > 0) {
        bar.start(total, 0);
        started = true;
      }
    },
    tick() {
      if (started) bar.increment();
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
