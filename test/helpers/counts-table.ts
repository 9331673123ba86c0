import assert from 'node:assert/strict';

/** The counts table a publishing report opens with (the pull-request preview, the job summary), by column. */
export function countsOf(markdown: string): Record<string, number> {
  const found = /^\| (Created \|[^\n]*)\|\n\|[-|]+\|\n\| ([^\n]*)\|$/m.exec(markdown);
  assert.ok(found, `no counts table in:\n${markdown}`);
  const headers = (found[1] ?? '').split('|').map((header) => header.trim());
  const values = (found[2] ?? '').split('|').map((value) => Number(value.trim()));
  return Object.fromEntries(headers.map((header, i) => [header, values[i] ?? NaN]));
}
