import { appendFile, cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { hashText } from '../../src/local/index.js';
import { nodeUrl } from '../../src/emulator/views.js';
import { CRASH_POINTS } from '../../src/sync/run/crash-points.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { isConflictCopy, ledgerRows, localFiles } from '../helpers/reliability.js';
import { foldedState, idFaults } from '../helpers/state-reader.js';
import { createSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { Random } from './random.js';

/**
 * The randomized test of the shared state's writers: two workstations (A and B, two-way, each with its
 * ledger) edit their own parts of the tree, while CI jobs publish a repository's `docs/` (push, no ledger:
 * a fresh checkout each time, several jobs of one commit at once, some killed at a crash point), with
 * faults and latency on the state's endpoints to widen the windows, and state documents small enough that
 * churn compacts the state.
 *
 * Time is the seed's, not the wall clock's: the service's clock stands still but where a step moves it on
 * by whole minutes (modified times, and so every same-minute re-check, follow the sequence), and a
 * compaction's grace period is over only for the runs a step says run "ten minutes later" (they run with
 * KBSYNC_STATE_GRACE_MS=0, every other run with a grace period longer than the test).
 *
 * After quiescence (every writer synced once more, no fault) it checks what must hold whatever the
 * interleaving: one document per file, every creation id in the state, the state's entry of each path
 * what its last writer published (the document, the file's text, the creation id), a fresh checkout and
 * a workstation without its ledger writing nothing, and no deletion left pending. A seed replays the
 * sequence of actions (kbsync's own timing may vary; the step log is what to read first).
 */
export type StateChaosOptions = { readonly seed: number; readonly steps: number; readonly quiesceEvery?: number; readonly onStep?: (line: string) => void };

export type StateChaosStats = { steps: number; ciJobs: number; killed: number; faultRuns: number; quiescences: number; stateDocuments: number };

export class StateChaosFailure extends Error {}

/**
 * Writers' crash points, those between a create's answer and its id's append included: README's window, in
 * which a kill loses that create's id (state-crash-matrix.test.ts). One kill may lose one id, no more (of a
 * machine that keeps its ledger, counted once its next run published what the ledger kept: noteWindow).
 */
const KILLS = CRASH_POINTS;
const FAULTS = ['latency=30,only=appendText|listNodes', '5xx=0.2,only=appendText', 'drop=0.3,only=appendText', 'latency=20,5xx=0.1,only=appendText|overwriteContent|readBlocks'];
const ENV = { KBSYNC_STATE_DOC_CHARS: '3000', KBSYNC_STATE_GRACE_MS: String(24 * 60 * 60 * 1000) };
/** A run long after the last: every retirement's grace period is over. */
const LATER = { KBSYNC_STATE_GRACE_MS: '0' };
/** The service's clock, frozen (as the model test's): minutes pass only where a step says so. */
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
/**
 * The writers delete a few files of a small tree at once: the mass-deletion guard (MASS_DELETE, right to
 * stop a run that deletes a large share) is not what this test is about.
 */
const GUARDS = { guards: { maxDeleteRatio: 1 } };

type Writer = { readonly name: string; readonly root: string; readonly area: string; sync(args?: readonly string[], env?: Record<string, string>): Promise<CliResult & { report?: SyncReport }> };

const reportOf = (result: CliResult): SyncReport | undefined => {
  const line = result.stdout.trim().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(line) as SyncReport | { error: unknown };
    return 'error' in parsed ? undefined : parsed;
  } catch {
    return undefined;
  }
};

export async function runStateChaos(options: StateChaosOptions): Promise<StateChaosStats> {
  const rng = new Random(options.seed);
  const f = await createSyncFixture({ emulator: { seed: options.seed }, env: ENV, config: GUARDS });
  f.em.admin.freezeClock(EPOCH);
  let minutes = 0;
  const tick = (n: number): void => {
    minutes += n;
    f.em.admin.setClockOffset(minutes * 60_000);
  };
  const log: string[] = [];
  const say = (line: string): void => {
    log.push(line);
    options.onStep?.(line);
  };
  const stats: StateChaosStats = { steps: 0, ciJobs: 0, killed: 0, faultRuns: 0, quiescences: 0, stateDocuments: 0 };
  const fail = (step: number, problems: readonly string[]): never => {
    throw new StateChaosFailure(`state chaos seed ${options.seed} failed at step ${step}:\n  ${problems.join('\n  ')}\n\nstep log (replay: npm run chaos:state -- --seed ${options.seed} --steps ${step}):\n${log.join('\n')}`);
  };
  let counter = 0;
  let commits = 0;
  /** With KBSYNC_CHAOS_TRACE=<file>, every run's debug log and report are appended there (to read a failing seed's runs). */
  let runs = 0;
  /** What every run told a person (its results' details and errors, its notices): where a lost id's document is said with its URL. */
  const told: string[] = [];
  const traced = async <R extends CliResult>(who: string, env: Record<string, string>, run: (env: Record<string, string>) => Promise<R>): Promise<R> => {
    const file = process.env['KBSYNC_CHAOS_TRACE'];
    const n = ++runs;
    const result = await run(file ? { ...env, KBSYNC_LOG_LEVEL: 'debug' } : env);
    told.push(...toldBy(reportOf(result)));
    if (file) await appendFile(file, `\n===== run ${n}: ${who} ${JSON.stringify(env)} → ${result.signal ?? String(result.code)}\n${result.stderr}\n${result.stdout}\n`);
    return result;
  };
  /** A document some run said with its URL (a held deletion's NOT_CREATED, a paired orphan's lost id): left to a person, who was told. */
  const saidWithUrl = (docKey: string): boolean => told.some((text) => text.includes(nodeUrl(f.em.seed.baseUrl, docKey)));
  /**
   * Documents whose creation id a kill lost (docKeys): made by a create that answered after the run's last
   * append (README's window, which a ledger has too; state-crash-matrix.test.ts). At most one per kill: a
   * kill that loses more, or an id lost without a kill (a fault, a race), fails the seed, at once or at the
   * next quiescence. Their deletion is held, not lost silently; one left beside its file's new document (a
   * rename or move the kill interrupted) may share that document's title only once a run said it with its URL.
   */
  const window = new Set<string>();
  /** The step under way: where a loss found after a later run is reported. */
  let current = 0;
  /**
   * Ids a killed run of a machine that keeps its ledger (A, B) left out of the state, by writer: not lost yet.
   * With a ledger a create's turn ends once its id is committed there, and the append of that id may wait for
   * the next create's (journal.ts), so a kill can leave two ids in the ledger that the state lacks; that
   * machine's next run publishes them (publish.ts: a record the state lacks is published again). So they
   * count as lost only if still missing after its next completed run (exit 0, or holding only lost ids'
   * deletions; a run killed again or stopped by a fault may not have published). A CI job keeps no ledger:
   * what its kill left out of the state is lost at once.
   */
  const unpublished = new Map<string, { readonly step: number; readonly docKeys: readonly string[] }[]>();
  const lostNow = (): string[] => idFaults(f).map((fault) => fault.docKey).filter((docKey) => !window.has(docKey));
  /** Ids `kills` kill(s) lost for good (`when`: as seen when): the window's, one per kill. */
  const countLost = (step: number, kills: number, lost: readonly string[], when: string): void => {
    if (lost.length > kills) fail(step, [`${kills} kill(s) lost the creation ids of ${lost.length} documents${when} (README's window allows one per kill): ${idFaults(f).filter((fault) => lost.includes(fault.docKey)).map((fault) => fault.problem).join('; ')}`]);
    for (const docKey of lost) window.add(docKey);
  };
  /** After runs of which `kills` were killed: the ids missing since `before` (lostNow then); `keeper`: the one killed run's writer keeps its ledger. */
  const noteWindow = (step: number, kills: number, before: readonly string[], keeper?: string): void => {
    const lost = lostNow().filter((docKey) => !before.includes(docKey));
    if (kills === 0 || lost.length === 0) return;
    if (keeper === undefined) return countLost(step, kills, lost, '');
    unpublished.set(keeper, [...(unpublished.get(keeper) ?? []), { step, docKeys: lost }]);
    say(`#${step} (${lost.length} creation id(s) not in the state: lost unless ${keeper}'s next run publishes them from its ledger)`);
  };
  /** After a run of a writer with a ledger: once it completed, what its killed runs left out of the state and it did not publish is lost. */
  const settleUnpublished = (who: string, result: CliResult): void => {
    const kills = unpublished.get(who);
    if (kills === undefined || result.signal !== null || !(result.code === 0 || (result.code === 1 && onlyHeldForLostIds(reportOf(result))))) return;
    unpublished.delete(who);
    const missing = lostNow();
    for (const kill of kills) {
      const lost = kill.docKeys.filter((docKey) => missing.includes(docKey));
      countLost(current, 1, lost, ` (${who}'s kill at step ${kill.step}: still missing after its next completed run)`);
      say(`#${current} (${who}'s run published ${kill.docKeys.length - lost.length} of the ${kill.docKeys.length} creation id(s) its kill at step ${kill.step} left out of the state)`);
    }
  };
  /** A run of a writer that keeps its ledger, traced, then settling what its earlier kills left out of the state. */
  const keeping = async <R extends CliResult>(who: string, env: Record<string, string>, run: (env: Record<string, string>) => Promise<R>): Promise<R> => {
    const result = await traced(who, env, run);
    settleUnpublished(who, result);
    return result;
  };
  try {
    const repo = join(f.dir, 'repo');
    const a: Writer = { name: 'A', root: f.root, area: 'team/a', sync: (args = [], env = {}) => keeping('A', env, (more) => f.sync(args, more)) };
    await f.write('team/a/start.md', `# A start\n\nFirst words of A.\n`);
    await mkdir(join(repo, 'docs'), { recursive: true });
    await writeFile(join(repo, 'docs', 'index.md'), '# Docs index\n\nWelcome.\n');
    assert(await a.sync(), 'the first sync of A');
    const bRoot = join(f.dir, 'b');
    assert(await f.cli(['clone', f.em.seed.workspaceUrl, bRoot]), 'the clone of B');
    const bConfig = join(bRoot, 'sync.config.json');
    await writeFile(bConfig, JSON.stringify({ ...(JSON.parse(await readFile(bConfig, 'utf8')) as object), ...GUARDS }));
    const b: Writer = { name: 'B', root: bRoot, area: 'team/b', sync: (args = [], env = {}) => keeping('B', env, (more) => runCli(['sync', '--json', ...args, '--config', bConfig], { cwd: bRoot, env: { ...f.env, ...more } })).then((r) => ({ ...r, ...withReport(r) })) };
    const ci = async (job: string, env: Record<string, string> = {}) => {
      const root = join(f.dir, `ci-${job}`);
      await rm(root, { recursive: true, force: true });
      await cp(repo, root, { recursive: true });
      const config = join(f.dir, `ci-${job}.config.json`);
      await writeFile(config, JSON.stringify({ ...GUARDS, root: `./ci-${job}`, include: ['docs/**/*.md'], workspaceId: f.em.seed.workspaceId, service: { baseUrl: f.em.seed.baseUrl, operatorId: f.em.seed.operatorId } }));
      const result = await traced(`CI ${job}`, env, (more) => runCli(['sync', '--json', '--push', '--config', config], { cwd: f.dir, env: { ...f.env, ...more } }));
      return { ...result, ...withReport(result) };
    };
    const withReport = (result: CliResult): { report?: SyncReport } => {
      const report = reportOf(result);
      return report ? { report } : {};
    };

    /** One change a person makes to the files of `root` under `area`; a line for the log. */
    const change = async (root: string, area: string, who: string): Promise<string> => {
      const all = [...(await localFiles(root)).keys()];
      const files = all.filter((p) => p.startsWith(`${area}/`) && !isConflictCopy(p)).sort();
      const drawn = files.length === 0 ? 'create' : rng.weighted({ create: 3, edit: 4, rename: 1, move: 1, delete: 1.5 });
      // Deleting the folder's last Markdown file makes kbsync refuse (EMPTY_LOCAL: the guard against an
      // unmounted folder, right to stop there): a person who empties the folder gets an edit instead.
      const kind = drawn === 'delete' && all.length === 1 ? 'edit' : drawn;
      const k = ++counter;
      if (kind === 'create') {
        const path = `${area}/${rng.chance(0.3) ? 'sub/' : ''}n${k}.md`;
        await write(root, path, `# ${who} note ${k}\n\nText ${k} by ${who}.\n`);
        return `${who}: create ${path}`;
      }
      const path = rng.pick(files);
      if (kind === 'edit') {
        await write(root, path, `${(await localFiles(root)).get(path) ?? ''}\nMore by ${who}, ${k}.\n`);
        return `${who}: edit ${path}`;
      }
      if (kind === 'delete') {
        await rm(join(root, path));
        return `${who}: delete ${path}`;
      }
      const to = kind === 'rename' ? `${posix.dirname(path)}/renamed${k}.md` : path.includes('/sub/') ? `${area}/${posix.basename(path)}` : `${area}/sub/${posix.basename(path)}`;
      if (to === path || files.includes(to)) return `${who}: (no ${kind})`;
      await mkdir(dirname(join(root, to)), { recursive: true });
      await rename(join(root, path), join(root, to));
      return `${who}: ${kind} ${path} -> ${to}`;
    };

    /** A sync of a writer, plain, killed at a crash point, or under faults. */
    const syncOf = async (w: Writer, step: number, env: Record<string, string>): Promise<void> => {
      const how = rng.weighted({ plain: 5, kill: 2, faults: 2 });
      let result;
      if (how === 'kill') {
        const at = `${rng.pick(KILLS)}:${rng.int(1, 2)}`;
        const before = lostNow();
        result = await w.sync([], { ...env, KBSYNC_CRASH_AT: at });
        say(`#${step} ${w.name} sync killed at ${at} → ${result.signal ?? `exit ${String(result.code)}`}`);
        if (result.signal === 'SIGKILL') {
          stats.killed += 1;
          noteWindow(step, 1, before, w.name);
        }
      } else if (how === 'faults') {
        const spec = `${rng.pick(FAULTS)},seed=${rng.int(1, 1_000_000)}`;
        f.em.admin.setFaults(spec);
        try {
          result = await w.sync([], env);
        } finally {
          f.em.admin.setFaults({});
        }
        stats.faultRuns += 1;
        say(`#${step} ${w.name} sync under ${spec} → exit ${String(result.code)}`);
      } else {
        result = await w.sync([], env);
        say(`#${step} ${w.name} sync → exit ${String(result.code)}${summary(result.report)}`);
      }
    };

    for (let step = 1; step <= options.steps; step += 1) {
      stats.steps = step;
      current = step;
      const action = rng.weighted({ a: 3, b: 3, commit: 2, ci: 3 });
      // The same minute as the last step (the hard case for minute-precise times), the next one, or long after.
      const pause = rng.weighted({ none: 3, minute: 4, later: 1 });
      tick(pause === 'none' ? 0 : pause === 'minute' ? 1 : 10);
      const env = pause === 'later' ? LATER : {};
      if (pause === 'later') say(`#${step} (ten minutes later: compactions' grace periods are over)`);
      if (action === 'a' || action === 'b') {
        const w = action === 'a' ? a : b;
        for (let i = rng.int(1, 2); i > 0; i -= 1) say(`#${step} ${await change(w.root, w.area, w.name)}`);
        await syncOf(w, step, env);
      } else if (action === 'commit') {
        commits += 1;
        for (let i = rng.int(1, 3); i > 0; i -= 1) say(`#${step} commit ${commits}: ${await change(repo, 'docs', 'CI')}`);
      } else {
        // Jobs of the latest commit at once (a re-run racing the first), some killed, some under faults.
        const jobs = rng.int(1, 3);
        const spec = rng.chance(0.3) ? `${rng.pick(FAULTS)},seed=${rng.int(1, 1_000_000)}` : undefined;
        if (spec) f.em.admin.setFaults(spec);
        try {
          const before = lostNow();
          const runs = await Promise.all(
            Array.from({ length: jobs }, (_, j) => {
              const kill = rng.chance(0.25) ? `${rng.pick(KILLS)}:${rng.int(1, 2)}` : undefined;
              return ci(`${step}-${j}`, kill ? { ...env, KBSYNC_CRASH_AT: kill } : env).then((r) => ({ r, kill }));
            }),
          );
          for (const { r, kill } of runs) {
            stats.ciJobs += 1;
            if (r.signal === 'SIGKILL') stats.killed += 1;
            say(`#${step} CI job of commit ${commits}${kill ? ` killed at ${kill}` : ''}${spec ? ` under ${spec}` : ''} → ${r.signal ?? `exit ${String(r.code)}`}${summary(r.report)}`);
          }
          noteWindow(step, runs.filter(({ r }) => r.signal === 'SIGKILL').length, before);
        } finally {
          f.em.admin.setFaults({});
        }
      }
      if (step % (options.quiesceEvery ?? 8) === 0 || step === options.steps) {
        stats.quiescences += 1;
        tick(1);
        const problems = await quiesce(f, { a, b, ci: () => ci(`q${step}`), repo, window, saidWithUrl, tick }, say, step);
        if (problems.length > 0) fail(step, problems);
        say(`#${step} quiet: ${f.remoteDocs().length} documents, the state and every writer agree`);
      }
    }
    stats.stateDocuments = f.em.admin.dump().nodes.filter((n) => /^kbsync-(state|sources)-/.test(n.title)).length;
    return stats;
  } finally {
    await f.close();
  }
}

async function write(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

function assert(result: CliResult, what: string): true {
  if (result.code !== 0) throw new StateChaosFailure(`${what} failed: ${result.stdout}\n${result.stderr}`);
  return true;
}

const summary = (report: SyncReport | undefined): string => {
  if (!report) return '';
  const counts = Object.entries(report.counts).filter(([key]) => key !== 'unchanged').map(([key, n]) => `${key} ${n}`);
  const failures = report.results.flatMap((r) => (r.ok ? [] : [`${r.path}: ${r.code}`]));
  const held = report.results.flatMap((r) => (r.ok && r.result === 'held' ? [`${r.path}: ${r.reason ?? '?'}`] : []));
  return `${counts.length > 0 ? ` [${counts.join(', ')}]` : ''}${held.length > 0 ? ` held: ${held.join('; ')}` : ''}${failures.length > 0 ? ` failed: ${failures.join('; ')}` : ''}`;
};

/** A run whose only unfinished work is deletions held because the document's creation id was lost (the window). */
const onlyHeldForLostIds = (report: SyncReport | undefined): boolean =>
  report !== undefined &&
  report.problems.length === 0 &&
  report.results.every((r) => r.ok && (r.result !== 'held' || r.reason === 'NOT_CREATED' || r.reason === 'CREATE_ANSWER_LOST' || r.reason === 'ID_UNVERIFIED'));

/** What a run told a person: each result's detail (a held deletion's reason, a lost id's URL) or error, and its notices. */
const toldBy = (report: SyncReport | undefined): string[] =>
  report === undefined ? [] : [...report.results.map((r) => (r.ok ? (r.detail ?? '') : r.error)), ...report.notices.map((notice) => notice.message)];

const WRITES = ['createDocument', 'overwriteContent', 'deleteDocument', 'appendText'] as const;
const writesOf = (report: SyncReport | undefined): number => WRITES.reduce((sum, endpoint) => sum + (report?.callsByEndpoint[endpoint] ?? 0), 0);

/**
 * Every writer syncs until it succeeds (CI, then A and B until they settle, and A again, so each has the
 * others' changes), then the checks. Returns the problems found (none: the invariants hold).
 */
async function quiesce(
  f: SyncFixture,
  w: { readonly a: Writer; readonly b: Writer; readonly ci: () => Promise<CliResult & { report?: SyncReport }>; readonly repo: string; readonly window: ReadonlySet<string>; readonly saidWithUrl: (docKey: string) => boolean; readonly tick: (minutes: number) => void },
  say: (line: string) => void,
  step: number,
): Promise<string[]> {
  const problems: string[] = [];
  const settle = async (name: string, run: () => Promise<CliResult & { report?: SyncReport }>): Promise<SyncReport | undefined> => {
    let last = '';
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const result = await run();
      say(`#${step} quiesce: ${name} → exit ${String(result.code)}${summary(result.report)}`);
      if (result.code === 0 || (result.code === 1 && onlyHeldForLostIds(result.report))) return result.report;
      last = result.stderr.split('\n').filter((line) => line.trim() !== '').slice(-3).join(' ');
      // The next try a minute later, as a failed run's message asks (a JUST_CREATED hold: "sync again in a
      // minute"): in a frozen minute a document a killed run made would be "just made" on every try.
      w.tick(1);
    }
    problems.push(`${name} did not succeed in three fault-free runs: ${last}`);
    return undefined;
  };
  await settle('CI job', w.ci);
  // Rounds of A and B until a round changes nothing (a file that follows a rename made elsewhere takes
  // that document's later edits on the next run), at most three; then A once more, the last writer. Each
  // round a minute after the last, as a daemon's runs are: a run trusts the state it read while that
  // minute is open (state-seen.ts), so an append another writer made in the same minute is learnt only
  // in the next one, and a round in a frozen minute could end with one writer that never learns it.
  for (let round = 1; round <= 3 && problems.length === 0; round += 1) {
    w.tick(1);
    const reports = [await settle('A', () => w.a.sync()), await settle('B', () => w.b.sync())];
    if (reports.every((report) => report !== undefined && writesOf(report) === 0 && report.results.every((r) => r.ok && (r.result === 'unchanged' || r.result === 'held')))) break;
  }
  w.tick(1);
  const last = await settle('A', () => w.a.sync());
  if (problems.length > 0) return problems;
  if ((last?.pending.length ?? 0) > 0) problems.push(`pending after quiescence: ${JSON.stringify(last?.pending)}`);

  // One document per file, and the two workstations hold the same tree.
  const aFiles = new Map([...(await localFiles(w.a.root))].filter(([path]) => !isConflictCopy(path)));
  const bFiles = new Map([...(await localFiles(w.b.root))].filter(([path]) => !isConflictCopy(path) && path !== 'sync.config.json'));
  const docs = f.remoteDocs();
  const titles = docs.map((doc) => doc.title);
  const state = foldedState(f);
  // Documents of the window whose file is gone are held (their id was never recorded): not counted as files.
  const heldLost = [...state.entries.values()].filter((entry) => !aFiles.has(entry.p) && w.window.has(entry.k)).length;
  // A title twice only for the window's documents that a run said with their URL: a kill between a create's
  // answer and its id's append (README's window) left that document beside the one its file has now (the
  // file renamed or moved since, or the document pulled as a file of its own), and kbsync, which cannot
  // delete it, told a person to. Any other document of a title already taken is a duplicate.
  const leftToAPerson = docs.filter((doc) => w.window.has(doc.dentryUuid) && w.saidWithUrl(doc.dentryUuid));
  const counted = docs.filter((doc) => !leftToAPerson.includes(doc)).map((doc) => doc.title);
  if (new Set(counted).size !== counted.length) {
    const excused = leftToAPerson.length > 0 ? ` (left to a person, their ids lost to kills: ${leftToAPerson.map((doc) => doc.title).sort().join(', ')})` : '';
    problems.push(`a title twice: ${titles.sort().join(', ')}${excused}`);
  }
  if (titles.length !== aFiles.size + heldLost) problems.push(`${titles.length} documents for ${aFiles.size} files: ${titles.sort().join(', ')} / ${[...aFiles.keys()].sort().join(', ')}`);
  // A file B deleted whose document's creation id a kill lost (the window) stays on A: B's delete is held.
  const windowPaths = new Set([...state.entries.values()].filter((entry) => w.window.has(entry.k)).map((entry) => entry.p));
  for (const [path, text] of aFiles) if (bFiles.get(path) !== text && !(bFiles.get(path) === undefined && windowPaths.has(path))) problems.push(`${path}: A and B differ`);
  // Every creation id in the state (but the window's); each entry is what A, the last writer, published of its path.
  problems.push(...idFaults(f, state).flatMap((fault) => (w.window.has(fault.docKey) ? [] : [fault.problem])));
  const byDoc = new Map(f.remoteDocs().map((doc) => [doc.dentryUuid, doc]));
  for (const row of ledgerRows(f)) {
    const entry = state.entries.get(row.path);
    if (!entry) {
      problems.push(`${row.path}: no entry in the state`);
      continue;
    }
    if (entry.k !== row.docKey) problems.push(`${row.path}: the state pairs it with ${entry.k}, A's ledger with ${row.docKey}`);
    const text = aFiles.get(row.path);
    if (text !== undefined && entry.h !== hashText(text)) problems.push(`${row.path}: the state's source is not the file's text`);
    const doc = byDoc.get(entry.k);
    if (entry.m !== '' && entry.m !== doc?.modifiedTime) problems.push(`${row.path}: the state's modified time ${entry.m} is not the document's ${String(doc?.modifiedTime)}`);
  }
  for (const [path, entry] of state.entries) {
    const lostId = w.window.has(entry.k);
    if (!aFiles.has(path) && !lostId) problems.push(`${path}: an entry for no file`);
  }
  // Without a ledger, nothing to write: a fresh checkout of the commit, and a copy of A's folder.
  const fresh = await w.ci();
  const acts = fresh.report?.planned.filter((p) => p.kind !== 'held') ?? [{ path: '', kind: 'none' }];
  if (writesOf(fresh.report) !== 0 || acts.length !== 0) problems.push(`a fresh CI checkout still acts: ${JSON.stringify(fresh.report?.planned)} ${JSON.stringify(fresh.report?.callsByEndpoint)}`);
  const copy = join(f.dir, `a-copy-${step}`);
  await cp(w.a.root, copy, { recursive: true, filter: (path) => !path.includes(`${'/'}.kbsync`) });
  const config = join(f.dir, `a-copy-${step}.config.json`);
  await writeFile(config, JSON.stringify({ ...GUARDS, root: `./a-copy-${step}`, workspaceId: f.em.seed.workspaceId, service: { baseUrl: f.em.seed.baseUrl, operatorId: f.em.seed.operatorId } }));
  const lost = await runCli(['sync', '--json', '--config', config], { cwd: f.dir, env: { ...f.env, KBSYNC_LOG_LEVEL: 'debug' } });
  const lostReport = reportOf(lost);
  if ((lost.code !== 0 && !(lost.code === 1 && onlyHeldForLostIds(lostReport))) || writesOf(lostReport) !== 0) problems.push(`a workstation without its ledger still writes: exit ${String(lost.code)} ${JSON.stringify(lostReport?.callsByEndpoint)} ${JSON.stringify(lostReport?.planned)} ${lost.stderr.split('\n').filter((l) => /state/i.test(l)).join('\n')}`);
  await rm(copy, { recursive: true, force: true });
  for (const dir of await readdir(f.dir)) if (dir.startsWith('ci-')) await rm(join(f.dir, dir), { recursive: true, force: true });
  return problems;
}
