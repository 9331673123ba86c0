/** One cell of a GitHub-flavoured Markdown table: pipes escaped, line breaks flattened, never empty-looking. */
const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

/** Inline code that survives any backticks inside it (a longer fence than the longest run). */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${headers.map(cell).join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}
