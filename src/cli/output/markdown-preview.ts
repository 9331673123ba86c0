import type { LinkProblem } from '../../links/index.js';
import { parseMarkdown } from '../../markdown/parse.js';
import type { LocalProblem } from '../../sync/observe/observe-local.js';
import type { Preview } from '../../sync/views/preview.js';
import { plannedRow, publishCounts, type Outcome } from '../../sync/views/outcomes.js';
import { describeDecision } from '../../sync/views/vocabulary.js';
import { linkSection } from './link-lines.js';
import { code, codePath, countsTable } from './markdown-table.js';
import { changedItems, unifiedDiffLines } from './unified-diff.js';

/** What `kbsync diff --push --format markdown` is made from: each file's decision and what it would send. */
type PreviewInput = {
  readonly where: string;
  readonly previews: readonly Preview[];
  readonly pending: readonly { readonly path: string; readonly reason: string }[];
  readonly problems: readonly LocalProblem[];
  readonly links: readonly LinkProblem[];
};

/** The top-level blocks of a body, as their Markdown source: what the service turns into one block each. */
const blocksOf = (markdown: string): string[] =>
  parseMarkdown(markdown).children.map((node) => markdown.slice(node.position?.start.offset ?? 0, node.position?.end.offset ?? 0));

const changedBlocks = (before: string, after: string): number => changedItems(blocksOf(before), blocksOf(after));

/** Text inside HTML (the folded diff's summary): a name with `<` in it is shown, not read as a tag. */
const html = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function details(summary: string, diff: readonly string[]): string[] {
  const fence = '`'.repeat(Math.max(3, ...diff.flatMap((line) => [...line.matchAll(/`{3,}/g)].map((run) => run[0].length + 1))));
  return ['', `<details><summary>${html(summary)}</summary>`, '', `${fence}diff`, ...diff, fence, '', '</details>'];
}

/** The sections of the comment, in order: one per outcome a pushed file can have (the table's columns). */
const SECTIONS: readonly (readonly [Outcome, string])[] = [
  ['created', 'Created'],
  ['updated', 'Updated'],
  ['moved', 'Moved'],
  ['renamed', 'Renamed'],
  ['deleted', 'Deleted'],
  ['held', 'Held back'],
  ['failed', 'Could not be decided'],
];

/** Outcomes whose body a reviewer wants to see changed: the block count and the diff, folded. */
const SHOWS_BODY: ReadonlySet<Outcome> = new Set(['updated', 'moved', 'renamed']);

/** One file's lines in its section: `from → path`, what happens to its document, and what its body becomes. */
function itemLines(preview: Preview, outcome: Outcome): string[] {
  const gone = preview.url ? ` (the page deleted: ${preview.url})` : '';
  const said = `${preview.note ?? describeDecision(preview.kind)}${gone}`;
  const name = codePath(preview);
  const remote = preview.remote;
  if (!remote || !SHOWS_BODY.has(outcome)) return [`- ${name}: ${said}`];
  const count = changedBlocks(remote.before, remote.after);
  const blocks = count === 0 ? 'the same body' : `${count} block${count === 1 ? '' : 's'} changed`;
  // An update says its block count first, as it always has; a move or rename says what happens to the document.
  const line = outcome === 'updated' ? `- ${name}: ${blocks}${preview.note ? ` (${preview.note})` : ''}` : `- ${name}: ${said}; ${blocks}`;
  const diff = unifiedDiffLines(remote.before, remote.after, { from: `a/${preview.from ?? preview.path} (knowledge base now)`, to: `b/${preview.path} (after the merge)` });
  return diff.length === 0 ? [line] : [line, ...details(`Diff of ${preview.path}`, diff)];
}

/**
 * A pull-request comment: what merging would publish to the knowledge base, each file counted once in the
 * column of what it does to its document (the job summary's columns and counts), a move as a move; each
 * changed body's diff folded: its lines, printed as such (a file name with a line break in it cannot add one:
 * printable.ts).
 */
export function markdownPreview(input: PreviewInput): string[] {
  const rows = input.previews.map((preview) => ({ preview, outcome: plannedRow(preview).outcome }));
  const counts = publishCounts(rows, input.problems.length, input.links.length);
  const lines = ['## kbsync: what merging would publish', '', `A push of ${input.where}, computed from the knowledge base as it is now. Nothing was changed.`, ''];
  lines.push(...countsTable(counts), '');
  const section = (title: string, items: readonly string[]): void => {
    if (items.length > 0) lines.push(`### ${title}`, '', ...items, '');
  };
  for (const [outcome, title] of SECTIONS) section(title, rows.filter((row) => row.outcome === outcome).flatMap((row) => itemLines(row.preview, outcome)));
  section('Not synced', input.problems.map((p) => `- ${code(p.path)}: ${p.message} [${p.code}]`));
  section('Left for another kind of run', input.pending.map((item) => `- ${code(item.path)}: ${item.reason}`));
  if (input.links.length > 0) lines.push('### Broken links', '', 'Sent as written, so they would not work in the knowledge base:', '', ...linkSection(input.links), '');
  const shown = rows.filter((row) => SECTIONS.some(([outcome]) => outcome === row.outcome)).length;
  if (shown + input.problems.length + input.pending.length + input.links.length === 0) lines.push('Nothing to publish: the knowledge base already has these files.', '');
  return lines;
}
