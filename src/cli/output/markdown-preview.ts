import type { LinkProblem } from '../../links/index.js';
import { parseMarkdown } from '../../markdown/parse.js';
import type { LocalProblem } from '../../sync/observe/observe-local.js';
import type { Preview } from '../../sync/views/preview.js';
import { describeDecision } from './decision-words.js';
import { code, table } from './markdown-table.js';
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

const CREATES: ReadonlySet<string> = new Set(['create', 'recreate']);

/**
 * A pull-request comment: what merging would publish to the knowledge base (documents created, updated
 * with their changed-block counts, deleted, held, and the broken links), each update's diff folded: its
 * lines, printed as such (a file name with a line break in it cannot add one: printable.ts).
 */
export function markdownPreview(input: PreviewInput): string[] {
  const created: string[] = [];
  const updated: string[] = [];
  const deleted: string[] = [];
  const held: string[] = [...input.pending.map((item) => `- ${code(item.path)}: ${item.reason}`), ...input.problems.map((p) => `- ${code(p.path)}: not synced: ${p.message} [${p.code}]`)];
  let updates = 0;
  for (const preview of input.previews) {
    const note = preview.note ? `: ${preview.note}` : '';
    // What the decision is, where the preview has nothing more particular to say (the words status and diff use).
    const said = `: ${preview.note ?? describeDecision(preview.kind)}`;
    if (CREATES.has(preview.kind)) created.push(`- ${code(preview.path)}${said}`);
    else if (preview.kind === 'delete-remote') deleted.push(`- ${code(preview.path)}${said}`);
    else if (preview.kind === 'held') held.push(`- ${code(preview.path)}${note}`);
    else if (preview.remote) {
      const count = changedBlocks(preview.remote.before, preview.remote.after);
      updates++;
      updated.push(`- ${code(preview.path)}: ${count} block${count === 1 ? '' : 's'} changed${preview.note ? ` (${preview.note})` : ''}`);
      updated.push(...details(`Diff of ${preview.path}`, unifiedDiffLines(preview.remote.before, preview.remote.after, { from: `a/${preview.path} (knowledge base now)`, to: `b/${preview.path} (after the merge)` })));
    }
  }
  const lines = ['## kbsync: what merging would publish', '', `A push of ${input.where}, computed from the knowledge base as it is now. Nothing was changed.`, ''];
  lines.push(...table(['Created', 'Updated', 'Deleted', 'Held', 'Broken links'], [[created.length, updates, deleted.length, held.length, input.links.length].map(String)]), '');
  const section = (title: string, items: readonly string[]): void => {
    if (items.length > 0) lines.push(`### ${title}`, '', ...items, '');
  };
  section('Created', created);
  section('Updated', updated);
  section('Deleted', deleted);
  section('Held back or left alone', held);
  if (input.links.length > 0) {
    lines.push('### Broken links', '', 'Sent as written, so they would not work in the knowledge base:', '');
    lines.push(...table(['File', 'Line', 'Link', 'Why'], input.links.map((l) => [code(l.path), String(l.line), code(l.target), l.message])), '');
  }
  if (created.length + updates + deleted.length + held.length + input.links.length === 0) lines.push('Nothing to publish: the knowledge base already has these files.', '');
  return lines;
}
