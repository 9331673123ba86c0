import { oneLine } from '../../printable.js';
import { PUBLISH_COLUMNS, type PublishCounts } from '../../sync/views/outcomes.js';

/** One cell of a GitHub-flavoured Markdown table: pipes escaped, and the whole cell on its row's line (a line break in it shown escaped). */
const cell = (text: string): string => oneLine(text).replace(/\|/g, '\\|');

/** Inline code that survives any backticks inside it (a longer fence than the longest run). */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A file as code, `old` → `new` for one a decision moves. */
export const codePath = (item: { readonly path: string; readonly from?: string }): string => (item.from === undefined ? code(item.path) : `${code(item.from)} → ${code(item.path)}`);

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${headers.map(cell).join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

/** The counts every publishing report opens with (the pull-request preview, the job summary): one table, one shape. */
export const countsTable = (counts: PublishCounts): string[] => table(PUBLISH_COLUMNS.map(([, header]) => header), [PUBLISH_COLUMNS.map(([key]) => String(counts[key]))]);
