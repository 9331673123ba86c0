import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import type { Row } from './row.js';

/** A section's explanation: what was compared, how it was set up, what was extrapolated. */
export type Note = { readonly id: string; readonly text: string };

const number = (n: number): string => {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
};

const withUnit = (n: number | null, unit: string): string => (n === null ? '—' : unit === '' ? number(n) : `${number(n)} ${unit}`);

/** One table, as fixed-width text. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['#', 'metric', 'ours', 'baseline', 'ratio', 'target', 'met'];
  const lines = rows.map((r) => [r.id, r.metric, withUnit(r.ours, r.unit), withUnit(r.baseline, r.unit), r.ratio === null ? '—' : r.ratio.toFixed(2), r.target, r.met]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const format = (cells: readonly string[]): string =>
    cells.map((cell, i) => (i >= 2 && i <= 4 ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number))).join(' │ ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  return [format(header), rule, ...lines.map(format)].join('\n');
}

export function formatNotes(rows: readonly Row[], notes: readonly Note[]): string {
  const baselines = rows.filter((r) => r.baselineIs !== '').map((r) => `  [${r.id}] ${r.metric}: baseline = ${r.baselineIs}`);
  return [...notes.map((n) => `  [${n.id}] ${n.text}`), '', 'Baselines:', ...baselines].join('\n');
}

export type Results = {
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly platform: string };
  readonly only: readonly string[] | null;
  readonly rows: readonly Row[];
  readonly notes: readonly Note[];
  readonly errors: readonly { readonly section: string; readonly message: string }[];
};

export function machine(): Results['machine'] {
  const list = cpus();
  return { cpus: list.length, cpuModel: list[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
}

export async function writeResults(path: string, results: Results): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(results, null, 2)}\n`);
}
