import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { outcomeRows, type SyncReport } from '../../sync/views/report.js';
import { printableLine, printableLines } from '../../printable.js';
import { code, codePath, countsTable, table } from './markdown-table.js';
import { linkCheckLine, linkSection } from './link-lines.js';
import { invocation } from '../../invocation.js';

/**
 * `--output-format github`: GitHub Actions workflow commands, so each problem shows as an annotation on
 * its file and line in the run and the pull request, and a Markdown job summary of what was published.
 */
type Annotation = {
  readonly level: 'error' | 'warning' | 'notice';
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly title?: string;
  readonly message: string;
};

/** A workflow command's message: `%`, CR and LF percent-encoded (GitHub's rules). */
export const escapeData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** A workflow command's property value: as a message, and `:` and `,` too. */
export const escapeProperty = (text: string): string => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * One annotation as a workflow command. Its message is one line, as every printed line is (printable.ts):
 * GitHub would show a `%0A` in it as a line break, so a file name or title with one in it would show a line
 * of its own in the annotation; its file property is the path exactly (escaped GitHub's way), so the
 * annotation lands on the file.
 */
export function workflowCommand(annotation: Annotation): string {
  const properties = [
    annotation.file === undefined ? undefined : `file=${escapeProperty(annotation.file)}`,
    annotation.line === undefined ? undefined : `line=${annotation.line}`,
    annotation.col === undefined ? undefined : `col=${annotation.col}`,
    annotation.title === undefined ? undefined : `title=${escapeProperty(annotation.title)}`,
  ].filter((p) => p !== undefined);
  return `::${annotation.level}${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${escapeData(printableLine(annotation.message))}`;
}

/** A synced path as GitHub names files: relative to the workspace (the repository checkout), POSIX. */
export function repositoryPath(root: string, rel: string, env: NodeJS.ProcessEnv = invocation().env): string {
  const workspace = env['GITHUB_WORKSPACE'] || invocation().cwd;
  return path.relative(workspace, path.join(root, rel)).split(path.sep).join('/');
}

/** The broken links annotated one by one; past these, one notice says how many more. */
const LINK_ANNOTATIONS = 50;

/** One annotation per broken link (up to LINK_ANNOTATIONS), refused file, failed or held write. */
export function annotationsOf(report: SyncReport, where: (rel: string) => string, checkLinks: boolean): Annotation[] {
  const out: Annotation[] = [];
  // GitHub shows a few annotations a step and the log keeps every one: thousands (one line copied into a vault's
  // notes) would bury the rest. The job summary counts them all, and --json lists them.
  for (const link of report.links.slice(0, LINK_ANNOTATIONS)) {
    out.push({ level: checkLinks ? 'error' : 'warning', file: where(link.path), line: link.line, ...(link.column === undefined ? {} : { col: link.column }), title: 'LINK_BROKEN', message: `Broken link ${link.written}: ${link.message}.` });
  }
  if (report.linkCheck) out.push({ level: 'notice', title: 'kbsync link check', message: linkCheckLine(report.linkCheck) });
  const unsaid = report.links.length - LINK_ANNOTATIONS;
  if (unsaid > 0) out.push({ level: 'notice', title: 'LINK_BROKEN', message: `${unsaid} more broken link(s) are not annotated: the job summary counts them by reason, and the JSON report (--json) lists every one.` });
  for (const image of report.images) out.push({ level: 'warning', file: where(image.path), line: image.line, title: 'IMAGE_NOT_PUBLISHED', message: `Image "${image.target}" not published: ${image.message}.` });
  for (const problem of report.problems) out.push({ level: 'error', file: where(problem.path), title: problem.code, message: `Not synced: ${problem.message}` });
  for (const result of report.results) {
    if (!result.ok) out.push({ level: 'error', file: where(result.path), title: result.code, message: result.error });
    else if (result.result === 'held') out.push({ level: 'warning', file: where(result.path), title: 'held', message: `Held back: ${result.detail ?? 'not sent this run'}` });
  }
  return out;
}

/** The job summary's lines: the report's counts (`outcomes`: each file once, a move as a move), one row per file, then the broken links. */
export function jobSummary(report: SyncReport, title: string): string[] {
  const rows = outcomeRows(report);
  const lines = [`### ${title}`, ''];
  lines.push(...countsTable(report.outcomes), '');
  if (rows.length > 0) lines.push(...table(['File', 'Result', 'Detail'], rows.map((row) => [codePath(row), row.outcome, row.detail])), '');
  if (report.problems.length > 0) lines.push('**Not synced**', '', ...table(['File', 'Why'], report.problems.map((p) => [code(p.path), `${p.message} [${p.code}]`])), '');
  if (report.linkCheck) lines.push(linkCheckLine(report.linkCheck), '');
  if (report.links.length > 0) lines.push('**Broken links**', '', ...linkSection(report.links), '');
  return lines;
}

/**
 * Appends lines of Markdown to `$GITHUB_STEP_SUMMARY` when the runner provides one (elsewhere there is nowhere
 * to write it), each one line: a line break in a file name cannot add one (printable.ts).
 */
export function appendStepSummary(lines: readonly string[], env: NodeJS.ProcessEnv = invocation().env): boolean {
  const file = env['GITHUB_STEP_SUMMARY'];
  if (!file) return false;
  appendFileSync(file, `${printableLines(lines)}\n`);
  return true;
}
