#!/usr/bin/env node
// Runs every test file under test/ with node's own test runner, each compiled first (scripts/build-tests.mjs).
// Node 20's --test does not expand globs, so the list is built here.
// Usage: node scripts/run-tests.mjs [--build] [--alongside script,script] [--concurrency N] [path-filter ...]
// --build runs `npm run build` first (the tests run the CLI and the package from dist/), while the test files
// compile and the checks start: tsc keeps one core busy for a few seconds, and they use the other (with the
// typecheck alongside, the build does not type-check: `npm run build -- --no-check`).
// --alongside runs those npm scripts (npm test: check, which is typecheck and lint in one process, and knip)
// while the tests run, at a lower priority, and prints their output at the end: the tests leave a core idle
// much of the time (they wait on child processes and the emulator), and the checks, which took a third of npm
// test run one after another, use it.
// None of them reads dist/.
// With KBSYNC_TEST_TIMES=<file>, each test file appends its wall and CPU time there (scripts/test-times.mjs).
// --save-costs (on a run of the whole suite) writes each file's CPU time to scripts/test-costs.json, which the
// runner orders the files by: run it now and then, as files come and grow.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { buildTests, removeTestBuild } from './build-tests.mjs';

const args = process.argv.slice(2);
/** @param {string} flag @returns {string | undefined} the flag's value, taken out of args */
const option = (flag) => {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args.splice(at, 2)[1];
};
const alongside = (option('--alongside') ?? '').split(',').filter(Boolean);
/** @param {string} flag @returns {boolean} whether the flag was given, taken out of args */
const flag = (flag) => {
  const at = args.indexOf(flag);
  if (at !== -1) args.splice(at, 1);
  return at !== -1;
};
const buildFirst = flag('--build');
const saveCosts = flag('--save-costs');
// Six files at a time on 2 cores: a file spends much of its time waiting (on the emulator, timers, the daemons
// and crash runs it starts), and the others fill that. Measured on the whole suite while every CLI run was a
// process: 492 s of tests at 2, 393 s at 3, 355 s at 4 (against 377 s at 3, one after the other). Since most
// run in the test's process (test/helpers/cli.ts), npm test took 250 s at 4, 244 s at 6 and 243 s at 8, one
// after the other: past 6 the files only share the cores more thinly.
const concurrency = Number(option('--concurrency') ?? 6);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('--concurrency takes a whole number of test files to run at once, 1 or more');
  process.exit(2);
}
const filters = args;
if (saveCosts && filters.length > 0) {
  console.error('--save-costs saves the costs of the whole suite: give it no path filter');
  process.exit(2);
}
const timesFile = process.env.KBSYNC_TEST_TIMES ?? (saveCosts ? join(tmpdir(), `kbsync-test-times-${process.pid}.tsv`) : undefined);
/** @param {string} dir @returns {string[]} */
function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}
/**
 * Each file's CPU seconds in the last run saved with --save-costs (test/unit: all the unit groups together).
 * The suite keeps both cores busy, so a file's share of the run follows its CPU time; a file's waits on
 * timers use none.
 */
const COSTS_FILE = 'scripts/test-costs.json';
/** @type {Record<string, number>} */
const savedCosts = JSON.parse(readFileSync(COSTS_FILE, 'utf8'));
/**
 * A file's expected CPU seconds: as saved, or for a file not saved yet, one second for every 2 kB of it (the
 * end-to-end files' rough rate; a new file is placed once costs are saved again); a unit test file's, its share,
 * by size, of the unit tests' saved time. A group's: its files' together.
 * @param {string | string[]} entry a file, or a group's files @returns {number}
 */
function cost(entry) {
  if (typeof entry !== 'string') return entry.reduce((sum, file) => sum + cost(file), 0);
  if (isUnit(entry)) return ((savedCosts['test/unit'] ?? unitSize / 2000) * statSync(entry).size) / unitSize;
  return savedCosts[entry] ?? statSync(entry).size / 2000;
}
/**
 * Longest first (longest-processing-time-first), so the suite does not end on one long file running alone
 * with a core idle.
 * @param {(string | string[])[]} entries @returns {(string | string[])[]}
 */
function byCost(entries) {
  const costs = new Map(entries.map((entry) => [entry, cost(entry)]));
  const of = (/** @type {string | string[]} */ entry) => costs.get(entry) ?? 0;
  return entries.sort((a, b) => of(b) - of(a) || (String(a) < String(b) ? -1 : 1));
}
const found = findTests('test')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
/**
 * Files that cost less than loading them run in shared processes, one after another, as if they were one file:
 * a test file's process takes about half a second of CPU to start, load the code under test and warm it up
 * (measured: 0.25 s to import the sync fixture, 0.25 s more for its first sync), which is more than a unit
 * test file's tests take, and as much as a light end-to-end file's. The unit tests (no process, no server,
 * milliseconds each: 75 files took 40 s of CPU as a process each, 29 s in one process) always run so; so does
 * every other file whose saved cost is under LIGHT_SECONDS (the 69 files under 2 s: 73.6 s of CPU as a process
 * each, 41.6 s in four processes, the same 201 tests passing; the 29 of 2 to 4 s: 70.4 s, and 57.3 s in three,
 * the same 184; nine of 4 to 9 s, side by side at load 25-40: 49.0 s as a process each, 44.3 s in one). They run
 * in up to six groups, balanced by cost, so the suite does not end on one long group.
 * With --save-costs only the unit tests are grouped: every other file is measured alone.
 * @param {string[]} paths @returns {string[][]}
 */
function groups(paths) {
  const made = Array.from({ length: Math.min(concurrency, 6, paths.length) }, () => ({ cost: 0, /** @type {string[]} */ files: [] }));
  const costed = paths.map((path) => ({ path, cost: cost(path) })).sort((a, b) => b.cost - a.cost);
  for (const { path, cost: seconds } of costed) {
    const cheapest = made.reduce((min, group) => (group.cost < min.cost ? group : min));
    cheapest.files.push(path);
    cheapest.cost += seconds;
  }
  return made.map((group) => group.files.sort());
}
/**
 * The saved CPU seconds under which a file shares a process (groups, above). Every file but the seven longest (the
 * model's halves, the crash matrices, two writers, interrupted words: 10 s and more, each a share of the suite to
 * run beside the groups): a file's process costs about half a second of CPU to start and warm up, whatever its
 * size, and the six groups keep both cores busy as well as the files did alone.
 */
const LIGHT_SECONDS = 9;
const isUnit = (/** @type {string} */ file) => file.startsWith('test/unit/');
const isLight = (/** @type {string} */ file) => isUnit(file) || (!saveCosts && cost(file) < LIGHT_SECONDS);
const unitSize = found.filter(isUnit).reduce((sum, file) => sum + statSync(file).size, 0);
const entries = byCost([...found.filter((file) => !isLight(file)), ...groups(found.filter(isLight))]);
if (entries.length === 0) {
  console.error(`no test files match ${filters.join(' ') || 'test/**/*.test.ts'}`);
  process.exit(1);
}

/**
 * Runs a command to its end; with `quiet`, its output is kept and returned instead of shown.
 * @param {string[]} argv @param {{ quiet?: boolean, nice?: boolean, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ code: number, output: string }>}
 */
function run(argv, { quiet = false, nice = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(argv[0] ?? '', argv.slice(1), { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
    if (nice && child.pid !== undefined) setPriority(child.pid, 10); // the tests' waits have timeouts; the checks have none
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/**
 * A folder in memory for the tests' temporary files (Linux's /dev/shm, a tmpfs), removed when the run ends, or
 * undefined where there is none (or it is mounted noexec: tests run scripts they write there). The tests make
 * thousands of folders and hundreds of ledgers, and SQLite waits for the disk at every commit (synchronous =
 * FULL). The seven files that write most (the model test, the crash matrices, two writers, shared state,
 * settled push), run together on a busy machine, alternately on the disk and in memory: 229 and 169 s on the
 * disk, 219 and 142 s in memory, and 3-4 % less CPU. The code under test is the same; only what a power cut
 * would keep differs, which no test sees.
 */
/** The room /dev/shm must have for the tests' temporary files: a whole run kept at most 47 MB there at once (sampled every 10 s), a margin of forty times. */
const MEMORY_TMP_BYTES = 2 * 1024 ** 3;
function memoryTmpdir() {
  const base = '/dev/shm';
  let mounts;
  try {
    mounts = readFileSync('/proc/mounts', 'utf8');
  } catch {
    return undefined;
  }
  const mount = mounts.split('\n').map((line) => line.split(' ')).find((fields) => fields[1] === base);
  if (mount?.[2] !== 'tmpfs' || (mount[3] ?? '').split(',').includes('noexec')) return undefined;
  // A container's /dev/shm is often 64 MB: a full one would fail tests with ENOSPC, so only one with room is used.
  try {
    const { bavail, bsize } = statfsSync(base);
    if (bavail * bsize < MEMORY_TMP_BYTES) return undefined;
  } catch {
    return undefined;
  }
  try {
    return mkdtempSync(join(base, 'kbsync-tests-'));
  } catch {
    return undefined;
  }
}
const testTmpdir = memoryTmpdir();
/** Removes what this run made: the compiled tests and the tests' temporary folder. */
const cleanUp = async () => {
  await removeTestBuild();
  if (testTmpdir) rmSync(testTmpdir, { recursive: true, force: true });
};
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

const started = performance.now();
const seconds = () => `${Math.round((performance.now() - started) / 1000)} s`;
const checks = alongside.map((script) => run(['npm', 'run', '--silent', script], { quiet: true, nice: true }).then((result) => ({ script, ...result, took: seconds() })));
// With a typecheck beside it (npm run check is one), the build only compiles: the typecheck reports what tsc
// would (build.mjs).
const typechecked = alongside.includes('typecheck') || alongside.includes('check');
const build = ['npm', 'run', '--silent', 'build', ...(typechecked ? ['--', '--no-check'] : [])];
const [built, compiled] = await Promise.all([buildFirst ? run(build) : { code: 0 }, buildTests(entries)]);
if (built.code !== 0) {
  console.error('npm run build failed (above): no test was run');
  await cleanUp();
  process.exit(1);
}
// The CLI's code cache (src/cli/code-cache.ts) for the bundle just built, made by one `kbsync demo` (a sync both
// ways against its own emulator, 0.6 s of CPU) beside the tests' start: the crash tests' children are killed
// before they could write one, and each would compile what it runs. A run killed after its first create took
// 0.28 s of CPU without a cache, 0.23 s with the one a `kbsync --version` leaves, 0.20 s with the demo's; the
// crash tests alone start over a hundred. Users' runs have one from their first run on; code-cache.test.ts tests
// the cache itself, on bundles of its own.
const warmed = buildFirst ? run([process.execPath, 'bin/kbsync.js', 'demo', '--no-open'], { quiet: true, env: { ...process.env, ...(testTmpdir && { TMPDIR: testTmpdir }) } }) : undefined;
// Each file is one test for the runner, and its timeout is there to end a hang, not to time the machine: at load
// 25 on 2 cores the model test's halves and the identity crash matrix each ran past 5 minutes (the limit
// then), so a file gets 20 before it counts as hung.
const tests = await run([
  process.execPath,
  ...(timesFile ? ['--import', './scripts/test-times.mjs'] : []),
  // The property tests draw the same inputs on every run unless asked otherwise (property-seed.mjs).
  '--import',
  './scripts/property-seed.mjs',
  '--enable-source-maps',
  // Passed on to every test file's process. A young generation of 64 MB instead of 16: parsing Markdown (the
  // model test's, the emulator's) makes much short-lived garbage, and scavenging it took 15 % of the model
  // test's CPU; with it, the model test took 7 % less CPU (50.9 against 54.7 s).
  '--max-semi-space-size=64',
  // The garbage collector's work on the test's own thread, not shared out to helper threads: with six files and
  // the checks on 2 cores, every core is busy, and the helpers only add their coordination. The model test's
  // first half, run side by side with and without them, twice (load 20-30): 51.0 and 47.4 CPU-s with helpers,
  // 47.5 and 44.0 without (7 % less), the same 16 tests passing.
  '--single-threaded-gc',
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-timeout=1200000',
  ...compiled,
], { env: { ...process.env, ...(timesFile && { KBSYNC_TEST_TIMES: timesFile }), ...(testTmpdir && { TMPDIR: testTmpdir }) } });
const testsTook = seconds();
const demo = await warmed;
await cleanUp();
let failed = tests.code !== 0;
if (demo && demo.code !== 0) {
  console.log(`\nkbsync demo (run to make the CLI's code cache) FAILED (exit ${demo.code}):\n${demo.output.trimEnd()}`);
  failed = true;
}
for (const check of await Promise.all(checks)) {
  console.log(`\nnpm run ${check.script}: ${check.code === 0 ? 'ok' : `FAILED (exit ${check.code})`}, done ${check.took} after the start (the tests: ${testsTook})`);
  if (check.output.trim() !== '') console.log(check.output.trimEnd());
  failed ||= check.code !== 0;
}
if (saveCosts && timesFile && !failed) saveCostsOf(timesFile);
process.exit(failed ? 1 : 0);

/**
 * Writes each file's CPU seconds in this run, the unit groups' together, to COSTS_FILE.
 * @param {string} times test-times.mjs's lines: compiled file, wall seconds, CPU seconds
 */
function saveCostsOf(times) {
  const cpuOf = new Map(readFileSync(times, 'utf8').trim().split('\n').map((line) => line.split('\t')).map(([file, , cpu]) => [file, Number(cpu)]));
  /** @type {Record<string, number>} */
  const costs = {};
  entries.forEach((entry, index) => {
    const key = typeof entry === 'string' ? entry : 'test/unit';
    costs[key] = Math.round(((costs[key] ?? 0) + (cpuOf.get(compiled[index] ?? '') ?? 0)) * 10) / 10;
  });
  const sorted = Object.fromEntries(Object.entries(costs).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(COSTS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  if (!process.env.KBSYNC_TEST_TIMES) rmSync(times, { force: true });
  console.log(`\nsaved each test file's CPU seconds to ${COSTS_FILE}`);
}
