import { createHash } from 'node:crypto';
import { linkLine } from '../links/index.js';
import { imageLine } from '../images/problem-line.js';
import { KbsyncError, messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { ActionResult } from '../sync/run/executor.js';
import type { SyncReport } from '../sync/views/report.js';
import { eventWords } from './event-words.js';

/** Failures of the service or the token as a whole: met by every call alike, whichever endpoint said it. */
const OUTAGES: ReadonlySet<string> = new Set(['API_UNAUTHORIZED', 'API_NETWORK', 'API_SERVER', 'API_THROTTLED', 'TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_COMMAND_FAILED']);

/** Holds the daemon makes itself and lifts by itself (a delete or a move waiting its time): said by their own lines (removal-waits.ts). */
export const WAITING: ReadonlySet<string> = new Set(['DELETE_WAITING', 'MOVE_WAITING']);

/** What makes two failures the same one: an outage by its code alone, anything else by its code and words. */
export const failureKey = (code: string, message: string): string => (OUTAGES.has(code) ? code : `${code} ${message}`);

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
  const words = eventWords(result);
  const fields = { path: result.path, action: result.action, result: result.result, ...(result.reason ? { code: result.reason } : {}), ...(result.conflictPath ? { conflictPath: result.conflictPath } : {}) };
  // A hold that already stood was said when it began: saying it every cycle would drown everything else. A
  // delete or move that waits is said on its own line when first seen, and when it goes (or its file comes back).
  if (!words || result.repeated || (result.reason !== undefined && WAITING.has(result.reason))) {
    logger.debug(fields, `${result.path}: ${words ?? 'unchanged'}`);
    return;
  }
  // Held work and conflicts wait for the user: a warning, said once per change.
  const level = result.result === 'held' || result.result === 'conflict' ? 'warn' : 'info';
  logger[level](fields, `${result.path}: ${words}`);
}

/**
 * The cycle's leftovers that are not per-action results: unusable files and pending work. A problem is
 * logged when it first appears, not every cycle; returns the problems of this cycle for the next call.
 */
export function logReport(logger: Logger, kind: string, report: SyncReport, known: ReadonlySet<string>, pendingAt: 'info' | 'debug' = 'info', saidOfFiles: SaidOfFiles = new Map()): Set<string> {
  const now = new Set<string>();
  for (const problem of report.problems) {
    const key = `${problem.path}\0${problem.code}\0${problem.message}`;
    now.add(key);
    if (known.has(key)) continue;
    // A refusal an earlier run said of these very bytes (observe/refusals.ts): a daemon's restart told again each
    // file's (issue 44). No news; the start line counts it with what did not sync (folderStateLine).
    if (problem.repeated) logger.debug({ path: problem.path, code: problem.code }, `${problem.path}: still not synced, unchanged since it was said: ${problem.message}`);
    else logger.warn({ path: problem.path, code: problem.code }, `${problem.path}: ${problem.message}`);
  }
  // What the one-shot run says once per run (a title the service cannot rename): said once, while it stands.
  for (const notice of report.notices) {
    const key = `${notice.path}\0${notice.code}\0${notice.message}`;
    now.add(key);
    if (!known.has(key)) logger.info({ path: notice.path, code: notice.code }, `${notice.path}: ${notice.message}`);
  }
  const news = newsOfSentFiles(report, saidOfFiles);
  for (const link of news.links) logger.warn({ path: link.path, line: link.line, code: 'LINK_BROKEN', reason: link.reason }, linkLine(link));
  for (const image of news.images) logger.warn({ path: image.path, line: image.line, code: 'IMAGE_NOT_PUBLISHED', reason: image.reason }, imageLine(image));
  for (const item of report.pending) {
    const key = `${item.path}\0pending\0${item.reason}`;
    now.add(key);
    if (!known.has(key)) logger[pendingAt]({ path: item.path }, `${item.path}: ${item.reason}`);
  }
  return now;
}

/**
 * The cycle's last line, said once what it said is kept in the ledger (scheduler.ts): a kill after it does not have
 * the next start say again what this cycle said (a test that killed the daemon at this line met that now and then).
 */
export function logCycleDone(logger: Logger, kind: string, report: SyncReport): void {
  logger.debug(
    { cycle: kind, calls: report.calls, callsByEndpointSinceStart: report.callsByEndpoint, actions: report.planned.length, durationMs: report.durationMs },
    `${kind} cycle done: ${report.planned.length} action(s), ${report.calls} call(s)`,
  );
}

/** Results whose file's body went out this cycle: its links were checked again. */
const SENT: ReadonlySet<string> = new Set(['pushed', 'merged']);

type SentFileNews = Pick<SyncReport, 'links' | 'images'>;

/**
 * What was said of each file's broken links and unpublished images at its last send, by their keys. The daemon's
 * is kept in the ledger (said-of-files.ts), so that a restart does not say again what still stands.
 */
export type SaidOfFiles = {
  /** `from`: the file's path before a move this cycle met (done or held), whose row may still be the file's. */
  get(path: string, from?: string): ReadonlySet<string> | undefined;
  set(path: string, said: ReadonlySet<string>, from?: string): unknown;
};

/** A key of what was said: hashed, as the ledger keeps it (of a bounded size, and none of the words a person wrote). */
export const keyOf = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('base64url').slice(0, 22);
const linkKey = (link: SyncReport['links'][number]): string => keyOf('link', link.written, link.reason);
const imageKey = (image: SyncReport['images'][number]): string => keyOf('image', image.target, image.reason);

/**
 * The broken links and unpublished images of the files this cycle sent that were not said at the file's last send:
 * a link or image that stays broken through an edit of its file is no news (soak seed 11: the same links said
 * 1,273 times; soak 733: one missing logo said at each of its file's sends). `said` keeps, per file, what was said
 * (the daemon's through restarts: soak daemons said every standing link again after each restart); a fixed one is
 * forgotten, so breaking it again is said again.
 */
export function newsOfSentFiles(report: SyncReport, said: SaidOfFiles): SentFileNews {
  const sent = new Set(report.results.filter((r) => r.ok && SENT.has(r.result)).map((r) => r.path));
  const reported = new Set([...report.links.map((link) => link.path), ...report.images.map((image) => image.path)]);
  // A moved file is the same file: what was said of it before the move stands (the said keeps it where its row is).
  const movedFrom = new Map(report.results.flatMap((r) => (r.from !== undefined ? [[r.path, r.from] as const] : [])));
  const saidOf = (path: string): ReadonlySet<string> | undefined => said.get(path, movedFrom.get(path));
  const unsaid = (path: string, key: string): boolean => !saidOf(path)?.has(key);
  const news = { links: report.links.filter((link) => unsaid(link.path, linkKey(link))), images: report.images.filter((image) => unsaid(image.path, imageKey(image))) };
  for (const path of new Set([...sent, ...reported])) {
    const now = [...report.links.filter((link) => link.path === path).map(linkKey), ...report.images.filter((image) => image.path === path).map(imageKey)];
    // A file whose body did not go out (its links to a document this cycle deleted, a send that failed) had only
    // these checked: what was said of its other links still stands (replaced, they were said again at its next send).
    said.set(path, new Set(sent.has(path) ? now : [...(saidOf(path) ?? []), ...now]), movedFrom.get(path));
  }
  return news;
}

/**
 * The folder's state after the daemon's first cycle, said once at start: in step, or what waits for the
 * person (holds, open conflicts, files that did not sync), which the cycle said before only when it was new.
 */
export function folderStateLine(workspace: string, files: number, report: SyncReport): string {
  const reasons = report.results.map((r) => (r.ok ? (r.result === 'conflict' ? 'CONFLICT_OPEN' : r.result === 'held' ? r.reason : undefined) : 'failed'));
  const count = (match: (reason: string | undefined) => boolean): number => reasons.filter(match).length;
  const conflicts = count((reason) => reason === 'CONFLICT_OPEN');
  const removals = count((reason) => reason !== undefined && WAITING.has(reason));
  const held = count((reason) => reason !== undefined && reason !== 'CONFLICT_OPEN' && !WAITING.has(reason) && reason !== 'failed');
  const failed = count((reason) => reason === 'failed') + report.problems.length;
  const waiting = [held > 0 ? `${held} held` : '', conflicts > 0 ? `${conflicts} conflict(s) to settle` : '', failed > 0 ? `${failed} not synced` : ''].filter(Boolean);
  const later = removals > 0 ? `; ${removals} delete(s) or move(s) waiting their time (\`kbsync status\` says until when)` : '';
  if (waiting.length === 0) return `in step with ${workspace}: ${files} file(s)${later}`;
  return `synced with ${workspace}: ${files} file(s); waiting for you: ${waiting.join(', ')} (\`kbsync resolve\` lists them)${later}`;
}

/**
 * A guard's refusal says "run again with --force", which `kbsync sync` refuses while the daemon runs: what
 * works beside it instead. Empty for anything else.
 */
export function daemonAdvice(code: string): string {
  if (code === 'MASS_DELETE') return ' While kbsync watch runs: `kbsync resolve` lists the deletes that wait and `kbsync resolve --mine` sends them; or stop the daemon and run `kbsync sync --force`.';
  if (code === 'EMPTY_LOCAL' || code === 'EMPTY_REMOTE') return ' While kbsync watch runs, `kbsync sync --force` is refused: stop the daemon (Ctrl+C where it runs, or `systemctl --user stop` the unit `kbsync service status` names), run it, then start the daemon again.';
  return '';
}

/** A failed cycle: the code and message, never a bare "failed". */
export function describeFailure(error: unknown): { code: string; message: string } {
  // A Node errno (ENOSPC...) is still a code a person can look up; anything else is ours or UNEXPECTED.
  return { code: error instanceof KbsyncError ? error.code : ((error as { code?: unknown } | null)?.code?.toString() ?? 'UNEXPECTED'), message: messageOf(error) };
}
