import { imageLine } from '../images/problem-line.js';
import { KbsyncError, messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { ActionResult } from '../sync/executor.js';
import type { SyncReport } from '../sync/report.js';

/** What happened to a file, in words, for the one info line per synced file. */
const DONE: Record<string, string> = {
  pushed: 'sent to the knowledge base',
  pulled: 'updated from the knowledge base',
  merged: 'merged with edits from the knowledge base',
  conflict: 'conflicting edits: both versions kept',
  held: 'left as is for now',
};

/** What makes two failures the same one: the code and the words. */
export const failureKey = (code: string, message: string): string => `${code} ${message}`;

/**
 * One line per file that changed or failed; unchanged files only at debug level. A failure already in
 * `said` (the same outage met by an earlier file or cycle) is not news: debug level.
 */
export function logResult(logger: Logger, result: ActionResult, said?: Set<string>): void {
  if (!result.ok && result.code === 'QUEUE_CLOSED') {
    // Not a failure: the daemon is stopping, and the next start picks this file up.
    logger.info({ path: result.path, action: result.action, code: result.code }, `${result.path}: left for the next start (kbsync is stopping)`);
    return;
  }
  if (!result.ok) {
    const key = failureKey(result.code, result.error);
    logger[said?.has(key) ? 'debug' : 'warn']({ path: result.path, action: result.action, code: result.code }, `${result.path}: ${result.action} failed: ${result.error}`);
    said?.add(key);
    return;
  }
  const what = DONE[result.result];
  const fields = { path: result.path, action: result.action, result: result.result, ...(result.conflictPath ? { conflictPath: result.conflictPath } : {}) };
  // A hold that already stood was said when it began: saying it every cycle would drown everything else.
  if (!what || result.repeated) {
    logger.debug(fields, `${result.path}: ${result.detail ?? 'unchanged'}`);
    return;
  }
  const detail = result.detail ? ` (${result.detail})` : '';
  const copy = result.conflictPath ? `; the other version is in ${result.conflictPath}` : '';
  // Held work and conflicts wait for the user: a warning, said once per change.
  const level = result.result === 'held' || result.result === 'conflict' ? 'warn' : 'info';
  logger[level](fields, `${result.path}: ${what}${detail}${copy}`);
}

/**
 * The cycle's leftovers that are not per-action results: unusable files and pending work. A problem is
 * logged when it first appears, not every cycle; returns the problems of this cycle for the next call.
 */
export function logReport(logger: Logger, kind: string, report: SyncReport, known: ReadonlySet<string>): Set<string> {
  const now = new Set<string>();
  for (const problem of report.problems) {
    const key = `${problem.path}\0${problem.code}\0${problem.message}`;
    now.add(key);
    if (!known.has(key)) logger.warn({ path: problem.path, code: problem.code }, `${problem.path}: ${problem.message}`);
  }
  // Reported for the files this cycle sent, so each broken link is said once per change of its file.
  for (const link of report.links) {
    logger.warn({ path: link.path, line: link.line, code: 'LINK_BROKEN', reason: link.reason }, `${link.path}:${link.line}: broken link "${link.target}": ${link.message}`);
  }
  for (const image of report.images) logger.warn({ path: image.path, line: image.line, code: 'IMAGE_NOT_PUBLISHED', reason: image.reason }, imageLine(image));
  for (const item of report.pending) logger.info({ path: item.path }, `${item.path}: ${item.reason}`);
  logger.debug(
    { cycle: kind, calls: report.calls, callsByEndpointSinceStart: report.callsByEndpoint, actions: report.planned.length, durationMs: report.durationMs },
    `${kind} cycle done: ${report.planned.length} action(s), ${report.calls} call(s)`,
  );
  return now;
}

/** A failed cycle: the code and message, never a bare "failed". */
export function describeFailure(error: unknown): { code: string; message: string } {
  // A Node errno (ENOSPC...) is still a code a person can look up; anything else is ours or UNEXPECTED.
  return { code: error instanceof KbsyncError ? error.code : ((error as { code?: unknown } | null)?.code?.toString() ?? 'UNEXPECTED'), message: messageOf(error) };
}
