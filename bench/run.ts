/**
 * `npm run bench`: every benchmark in one run, printed as ONE table of ratios (ours ÷ a baseline
 * measured in the same run) and written to bench/results/latest.json. Only 127.0.0.1 is used.
 *
 *   node --import tsx bench/run.ts              all rows
 *   node --import tsx bench/run.ts --only 3     the sections holding row 3 (repeat or comma-separate)
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cleanupAll } from './lib/cleanup.js';
import { BenchContext, type Section } from './lib/context.js';
import type { Row } from './lib/row.js';
import { formatNotes, formatTable, machine, writeResults, type Results } from './lib/table.js';
import { apiSection } from './rows/api.js';
import { callsSection } from './rows/calls.js';
import { conversionSection } from './rows/conversion.js';
import { daemonFiftyKSection, daemonOneKSection, daemonTenKSection } from './rows/daemon.js';
import { initialPushSection } from './rows/initial-push.js';
import { memorySection } from './rows/memory.js';
import { noOpSection } from './rows/no-op.js';

/** In running order: the 10k tree is built once for rows 1, 2, 4, 6, 9; row 3's pushed tree serves 5 and 6. */
const SECTIONS: readonly Section[] = [noOpSection, memorySection, daemonTenKSection, daemonFiftyKSection, initialPushSection, daemonOneKSection, callsSection, conversionSection, apiSection];
const RESULTS = fileURLToPath(new URL('./results/latest.json', import.meta.url));
const BUDGET_S = 600;

function parseOnly(argv: readonly string[]): string[] | null {
  const picked: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--only') picked.push(...(argv[++i] ?? '').split(','));
    else if (arg.startsWith('--only=')) picked.push(...arg.slice('--only='.length).split(','));
    else throw new Error(`unknown argument ${arg}; use --only <row>[,<row>…] (rows: ${SECTIONS.flatMap((s) => s.rows).join(', ')})`);
  }
  const wanted = picked.map((p) => p.trim()).filter((p) => p !== '');
  const known = new Set(SECTIONS.flatMap((s) => s.rows));
  const unknown = wanted.filter((w) => !known.has(w));
  if (unknown.length > 0) throw new Error(`no row ${unknown.join(', ')}; rows are ${[...known].join(', ')}`);
  return wanted.length > 0 ? wanted : null;
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s and was stopped`)), ms)));
  try {
    return await Promise.race([promise, timeUp]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<number> {
  const only = parseOnly(process.argv.slice(2));
  const sections = only ? SECTIONS.filter((s) => s.rows.some((r) => only.includes(r))) : SECTIONS;
  const ctx = new BenchContext();
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const rows: Row[] = [];
  const errors: { section: string; message: string }[] = [];
  try {
    for (const section of sections) {
      ctx.log(`section: ${section.name} (rows ${section.rows.join(', ')})`);
      try {
        rows.push(...(await within(section.run(ctx), section.timeoutMs, section.name)));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.push({ section: section.name, message });
        ctx.log(`section "${section.name}" failed: ${message}`);
      }
    }
  } finally {
    await cleanupAll();
  }
  const durationS = (performance.now() - started) / 1000;
  const results: Results = { startedAt, durationS: Math.round(durationS * 10) / 10, machine: machine(), only, rows, notes: ctx.notes, errors };
  await writeResults(RESULTS, results);

  const m = results.machine;
  console.log(`\nkbsync benchmarks — ${m.cpus} × ${m.cpuModel}, node ${m.node}, ${m.platform}; every ratio is ours ÷ a baseline measured in this run\n`);
  console.log(formatTable(rows));
  console.log(`\nNotes:\n${formatNotes(rows, ctx.notes)}`);
  for (const error of errors) console.log(`\nFAILED section "${error.section}": ${error.message}`);
  const missed = rows.filter((r) => r.met === 'no');
  console.log(`\n${rows.filter((r) => r.met === 'yes').length} target(s) met, ${missed.length} missed${missed.length > 0 ? `: ${missed.map((r) => `[${r.id}] ${r.metric}`).join('; ')}` : ''}.`);
  const overBudget = !only && durationS > BUDGET_S;
  console.log(`Total ${durationS.toFixed(0)} s${only ? '' : ` (budget ${BUDGET_S} s${overBudget ? ': OVER' : ''})`}. JSON: ${RESULTS}`);
  return errors.length > 0 ? 1 : 0;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\nbench: ${signal}, cleaning up…\n`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

process.exitCode = await main().catch(async (error: unknown) => {
  await cleanupAll();
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  return 2;
});
