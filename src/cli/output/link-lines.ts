import { linkLine, summariseLinks, type LinkProblem, type LinkSummary } from '../../links/index.js';
import type { LinkCheckReport } from '../../sync/views/report.js';
import { code, table } from './markdown-table.js';

/** Up to this many broken links, each is listed; past it, a summary (one commented-out line copied into 3,000 notes is 3,000 links). */
const LIST_ALL = 20;

/** The distinct links a summary shows, most frequent first. */
const SAMPLE = 10;

const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** `3,321 anchor-missing, 205 missing` */
const reasonCounts = (summary: LinkSummary): string => summary.byReason.map(([reason, count]) => `${count.toLocaleString('en-US')} ${reason}`).join(', ');

/** What the sample leaves out, and where the full list is. */
const rest = (summary: LinkSummary): string => `${plural(summary.left, 'more broken link')}: the JSON report (--json) lists every one`;

/** `(the same link in 3,320 more places, 3,321 files in all)` */
const alsoIn = (count: number, files: number): string => (count === 1 ? '' : ` (the same link in ${plural(count - 1, 'more place')}, ${plural(files, 'file')} in all)`);

/** The broken links as lines for the terminal: each one, or past LIST_ALL, the counts per reason and the most frequent. */
export function linkLines(links: readonly LinkProblem[]): string[] {
  if (links.length <= LIST_ALL) return links.map((link) => `✗ ${linkLine(link)} [LINK_BROKEN]`);
  const summary = summariseLinks(links, SAMPLE);
  return [
    `✗ ${plural(summary.total, 'broken link')} in ${plural(summary.files, 'file')} [LINK_BROKEN]: ${reasonCounts(summary)}. The most frequent:`,
    ...summary.sample.map((group) => `  ${linkLine(group.first)}${alsoIn(group.count, group.files)}`),
    ...(summary.left > 0 ? [`  … ${rest(summary)}.`] : []),
  ];
}

/** The broken links as Markdown (the pull-request preview, the job summary): a table of each, or past LIST_ALL, a summary. */
export function linkSection(links: readonly LinkProblem[]): string[] {
  const where = (link: LinkProblem): string => `${link.line}${link.column === undefined ? '' : `:${link.column}`}`;
  if (links.length <= LIST_ALL) return table(['File', 'Line', 'Link', 'Why'], links.map((link) => [code(link.path), where(link), code(link.written), link.message]));
  const summary = summariseLinks(links, SAMPLE);
  return [
    `${plural(summary.total, 'broken link')} in ${plural(summary.files, 'file')}: ${reasonCounts(summary)}. The most frequent:`,
    '',
    ...table(
      ['Link', 'Why', 'Times', 'First in'],
      summary.sample.map((group) => [code(group.first.written), group.first.message, String(group.count), `${code(group.first.path)} line ${where(group.first)}`]),
    ),
    ...(summary.left > 0 ? ['', `… ${rest(summary)}.`] : []),
  ];
}

/** What a link check covered and found, in one line (`Link check: 45 files, 120 links (30 to other sites, left alone): 2 broken (1 missing, 1 anchor-missing).`) */
export function linkCheckLine(check: LinkCheckReport): string {
  // The most frequent reason first, as a summary of the list orders them.
  const reasons = Object.entries(check.byReason)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${count.toLocaleString('en-US')} ${reason}`);
  const found = check.broken === 0 ? 'none broken' : `${check.broken.toLocaleString('en-US')} broken (${reasons.join(', ')})`;
  return `Link check: ${plural(check.files, 'file')}, ${plural(check.links, 'link')} (${check.external.toLocaleString('en-US')} to other sites, left alone): ${found}.`;
}
