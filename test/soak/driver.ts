import { join, posix } from 'node:path';
import { openLedger } from '../../src/ledger/index.js';
import type { ResolveReport } from '../../src/cli/commands/resolve.js';
import { Random } from '../chaos/random.js';
import { runCli } from '../helpers/cli.js';
import { sharedSources } from '../helpers/state-reader.js';
import { isConflictCopy, WRITE_ENDPOINTS } from '../helpers/reliability.js';
import { CRASH_POINTS } from '../../src/sync/run/crash-points.js';
import { draw } from '../model/corpus.js';
import { FAULTS } from '../model/driver.js';
import { Tokens } from '../model/tokens.js';
import { World, type Machine } from '../model/world.js';
import { CallLog } from './calls.js';
import { DaemonCrew } from './daemons.js';
import { EditLog } from './edits.js';
import { asWritten, colleagueEdit, userCreate, userDelete, userEdit, userRename, type Cast } from './people.js';
import { isOpaque } from './pages.js';
import { Pages } from './rules.js';
import { falseHiddenNotices, judge, type Judgement, type MachineAtRest } from './verdict.js';

/**
 * The convergence soak: an emulator in this process, two real `kbsync watch` daemons on two folders bound to
 * one workspace, a user at each machine editing, creating, renaming, moving and deleting files, and a colleague
 * editing the documents in the web editor, on real documents (test/model/corpus, half of them made prose pages),
 * for some minutes, with the service's faults (errors, dropped answers, throttling) and the daemons killed and
 * restarted. Then the writers stop, the daemons settle (rounds of sweeps, each a service minute later, until a
 * round changes nothing), and the verdict (verdict.ts) says whether everything converged by itself.
 *
 * A seed fixes every choice the soak makes; what the daemons do between two choices depends on timing, so a
 * replay repeats the scenario, not every interleaving. Its step log is what to read first.
 */
export type SoakOptions = {
  readonly seed: number;
  /** Writing stops after this many minutes, or after `steps` actions, whichever comes first (one of them is needed). */
  readonly minutes?: number;
  /** Replays a run's writing spell to the step it ended at (the step count a time limit reached depends on the machine's speed). */
  readonly steps?: number;
  /** The team has a state key (the shared state is signed), as README recommends. */
  readonly keyed: boolean;
  /** Documents the workspace starts with. */
  readonly docs?: number;
  /** Share of documents made prose pages (every block shown); the rest keep code, tables and images. */
  readonly proseShare?: number;
  /** Seconds between the daemons' full sweeps (watch.fullSweepMinutes). */
  readonly sweepSeconds?: number;
  /** No faults and no kills: the people alone. */
  readonly calm?: boolean;
  readonly say?: (line: string) => void;
};

export type SoakResult = {
  readonly seed: number;
  readonly steps: number;
  readonly settledAfter: number | undefined;
  readonly judgement: Judgement;
  /** Everything that is not as converged as it must be. */
  readonly violations: readonly string[];
  readonly log: EditLog;
  readonly crew: DaemonCrew['counts'];
  readonly faultWindows: number;
  /** What the daemons said at warn level and above, by code (held, conflicts, failures), and their notices. */
  readonly said: ReadonlyMap<string, number>;
  /** The workspace at the end: documents, how many of them prose pages, and each machine's files (conflict copies aside). */
  readonly sizes: { readonly documents: number; readonly prose: number; readonly files: ReadonlyMap<string, number> };
};

/** The daemons' timings: sweeps every few seconds (the soak is minutes long), deletes that wait seconds, not minutes. */
const daemonConfig = (sweepSeconds: number): Record<string, unknown> => ({
  watch: { debounceMs: 200, fullSweepMinutes: sweepSeconds / 60, deleteDelayMinutes: 0.05, rescanMinutes: 2, shutdownDeadlineMs: 5000 },
});

const OPERATIONS = { edit: 9, colleague: 6, create: 0.7, rename: 0.4, move: 0.4, delete: 0.4, kill: 0.35, crash: 0.25, faults: 0.5, throttle: 0.25, tick: 0.8 } as const;
const CALM: ReadonlySet<string> = new Set(['kill', 'crash', 'faults', 'throttle']);

/** Settling: rounds of sweeps until one changes nothing; a daemon that finishes no sweep in this long is stuck. */
const SETTLE_ROUNDS = 10;
const SWEEP_TIMEOUT_MS = 180_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const say = options.say ?? ((): void => undefined);
  // Two streams: which action comes when (and the faults, kills and pauses) from one, the details of each action
  // (which file, which edit) from the other, so a replay runs the same actions at the same steps however the
  // daemons' timing made the folders differ.
  const rng = new Random(options.seed);
  const details = new Random(options.seed * 7919 + 17);
  const world = await World.create(options.seed, 2, options.keyed, false, daemonConfig(options.sweepSeconds ?? 3));
  const crew = new DaemonCrew(world.machines, say);
  const log = new EditLog();
  const pages = new Pages();
  const calls = new CallLog();
  const { start, pool } = draw(rng, options.docs ?? 16);
  const cast: Cast = { world, rng: details, tokens: new Tokens(), log, pages, calls, pool, proseShare: options.proseShare ?? 0.5 };
  const problems: string[] = [];
  try {
    for (const m of world.machines) await calls.route(m, world.em.url);
    const [a, b] = world.machines as [Machine, Machine];
    for (const doc of start) await a.write(posix.join(rng.pick(['', 'guides', 'ref']), doc.name), asWritten(cast, doc).text);
    say(`A starts with ${start.length} documents; B starts empty`);
    for (const m of [a, b]) {
      await crew.start(m);
      await crew.sweeps(m, 1, SWEEP_TIMEOUT_MS);
    }
    const { steps, faultWindows } = await write(world, rng, cast, crew, options, say);
    const settledAfter = await settle(world, crew, say, problems);
    const machines = await atRest(world, crew, problems);
    const apart = movesApart(world, crew, machines);
    await steady(world, say, problems);
    const judgement = judge(machines, world.docs(), log, pages, apart, { keyless: !options.keyed }, { overwrittenUnread: (token) => calls.overwrittenUnread(token), formattingSaid: pathsSaid(world, crew, 'FORMATTING_UNSEEN'), deleteIdLost: pathsSaid(world, crew, DELETE_ID_LOST_SAID), sharedSource: sourcesOf(world) });
    const notices = falseHiddenNotices(pathsSaid(world, crew, 'HIDDEN_EDIT'), machines, world.docs(), pages);
    const docs = world.docs();
    const sizes = { documents: docs.length, prose: docs.filter((doc) => !isOpaque(doc.markdown ?? '')).length, files: new Map(machines.map((m) => [m.name, [...m.files.keys()].filter((path) => !isConflictCopy(path)).length])) };
    return { seed: options.seed, steps, settledAfter, judgement, violations: [...problems, ...crew.problems, ...judgement.violations, ...notices], log, crew: crew.counts, faultWindows, said: said(world, crew), sizes };
  } finally {
    await crew.saveLogs().catch(() => undefined);
    await crew.dispose();
    await calls.close();
    await world.close();
  }
}

/** The writing spell: one seeded action after another, with a person's pause between, until the time is up. */
async function write(world: World, rng: Random, cast: Cast, crew: DaemonCrew, options: SoakOptions, say: (line: string) => void): Promise<{ steps: number; faultWindows: number }> {
  const weights = Object.fromEntries(Object.entries(OPERATIONS).filter(([op]) => !options.calm || !CALM.has(op))) as Record<keyof typeof OPERATIONS, number>;
  const deadline = options.minutes === undefined ? Infinity : Date.now() + options.minutes * 60_000;
  const last = options.steps ?? Infinity;
  /** The step at which each stopped daemon starts again. */
  const down = new Map<Machine, number>();
  let faultsUntil = 0;
  let throttleUntil = 0;
  let faultWindows = 0;
  let step = 0;
  while (Date.now() < deadline && step < last) {
    step += 1;
    if (step === faultsUntil) world.em.admin.setFaults({});
    if (step === throttleUntil) world.em.admin.setRateLimit(0);
    for (const m of world.machines) {
      if (crew.running(m) || (down.get(m) ?? 0) > step) continue;
      down.delete(m);
      await crew.start(m);
    }
    const op = rng.weighted(weights);
    const m = rng.pick(world.machines);
    let line: string | undefined;
    switch (op) {
      case 'edit':
        line = await userEdit(cast, m);
        break;
      case 'colleague':
        line = colleagueEdit(cast);
        break;
      case 'create':
        line = await userCreate(cast, m);
        break;
      case 'rename':
      case 'move':
        line = await userRename(cast, m, step, op === 'move');
        break;
      case 'delete':
        line = await userDelete(cast, m);
        break;
      case 'kill': {
        if (!crew.running(m) || crew.armed(m)) break;
        // Mid-work: right after a save, once the daemon has heard of it, at a moment the seed picks.
        const from = crew.lines(m);
        const edit = await userEdit(cast, m);
        const heard = await crew.nextLine(m, from, 5000);
        await sleep(rng.int(0, 600));
        crew.kill(m);
        down.set(m, step + rng.int(1, 4));
        line = `${edit ?? `${m.name} edits nothing`}; ${m.name}'s daemon killed (SIGKILL)${heard ? ' after it heard of the save' : ''}`;
        break;
      }
      case 'crash': {
        if (!crew.running(m) || crew.armed(m)) break;
        const at = `${rng.pick(CRASH_POINTS)}:${rng.int(1, 2)}`;
        await crew.stop(m);
        await crew.start(m, at);
        line = `${m.name}'s daemon restarted to crash at ${at}`;
        break;
      }
      case 'faults': {
        if (faultsUntil > step) break;
        const spec = `${rng.pick(FAULTS)},seed=${rng.int(1, 1_000_000)}`;
        world.em.admin.setFaults(spec);
        faultsUntil = step + rng.int(2, 8);
        faultWindows += 1;
        line = `the service fails: ${spec}, until step ${faultsUntil}`;
        break;
      }
      case 'throttle': {
        if (throttleUntil > step) break;
        const perSecond = rng.int(2, 6);
        world.em.admin.setRateLimit(perSecond);
        throttleUntil = step + rng.int(2, 8);
        faultWindows += 1;
        line = `the service allows ${perSecond} requests/s per endpoint, until step ${throttleUntil}`;
        break;
      }
      case 'tick': {
        const minutes = rng.int(1, 2);
        world.tick(minutes);
        line = `${minutes} service minute(s) pass: ${world.minute()}`;
        break;
      }
    }
    if (line) say(`#${step} ${line}`);
    await sleep(rng.int(100, 1000));
  }
  world.em.admin.setFaults({});
  world.em.admin.setRateLimit(0);
  return { steps: step, faultWindows };
}

/**
 * The writers have stopped: every daemon runs (unarmed), and rounds of sweeps go by, each a service minute
 * after the last (what another machine wrote in the minute of a read shows once that minute is over), until
 * a round makes no write to the service and changes no file. Returns the round it came to rest in.
 */
async function settle(world: World, crew: DaemonCrew, say: (line: string) => void, problems: string[]): Promise<number | undefined> {
  try {
    for (const m of world.machines) {
      if (crew.armed(m)) await crew.stop(m);
      if (!crew.running(m)) await crew.start(m);
    }
    for (let round = 1; round <= SETTLE_ROUNDS; round++) {
      world.tick(1);
      const before = writes(world);
      const files = await Promise.all(world.machines.map((m) => m.files()));
      await Promise.all(world.machines.map((m) => crew.sweeps(m, 2, SWEEP_TIMEOUT_MS)));
      const wrote = writes(world) - before;
      const changed = (await Promise.all(world.machines.map(async (m, i) => !sameFiles(files[i] ?? new Map(), await m.files())))).some(Boolean);
      say(`settling, round ${round}: ${wrote} write call(s) to the service, ${changed ? 'files changed' : 'no file changed'}`);
      if (round > 1 && wrote === 0 && !changed) return round;
    }
    problems.push(`the daemons did not come to rest in ${SETTLE_ROUNDS} rounds of two sweeps each`);
  } catch (error) {
    problems.push(`settling stopped: ${error instanceof Error ? error.message : String(error)}`);
  }
  return undefined;
}

const writes = (world: World): number => {
  const calls = world.em.admin.calls().byEndpoint;
  return WRITE_ENDPOINTS.reduce((sum, name) => sum + calls[name].calls, 0);
};

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}

/** What waits on each machine as `kbsync resolve --json` lists it beside the running daemon; then the daemons stop. */
async function atRest(world: World, crew: DaemonCrew, problems: string[]): Promise<MachineAtRest[]> {
  const listed = new Map<Machine, ResolveReport>();
  for (const m of world.machines) {
    const run = await runCli(['resolve', '--json', '--config', m.settings.configPath], { cwd: m.settings.dir, env: m.settings.env });
    try {
      listed.set(m, JSON.parse(run.stdout) as ResolveReport);
    } catch {
      problems.push(`\`kbsync resolve --json\` on ${m.name} exited ${String(run.code)} without a list: ${run.stderr.slice(0, 300)}`);
    }
  }
  for (const m of world.machines) await crew.stop(m);
  return Promise.all(world.machines.map(async (m) => ({ name: m.name, files: await m.files(), rows: m.rows(), hiddenEdits: standingHiddenEdits(m), listed: listed.get(m) ?? { conflicts: [], held: [] } })));
}

/** The paths whose ledger record remembers a hidden edit that stands (read while no daemon runs). */
function standingHiddenEdits(m: Machine): Set<string> {
  const ledger = openLedger(join(m.root, '.kbsync', 'ledger.sqlite'), { readonly: true, lock: false });
  try {
    return new Set(ledger.documents.allRecords().flatMap((record) => (record.hiddenEdit !== null ? [record.path] : [])));
  } finally {
    ledger.close();
  }
}

/** The documents a run said it could not move where a file went (a keyless team): the machines keep them apart. */
function movesApart(world: World, crew: DaemonCrew, machines: readonly MachineAtRest[]): Set<string> {
  const apart = new Set<string>();
  for (const m of world.machines) {
    const rows = machines.find((r) => r.name === m.name)?.rows ?? [];
    for (const line of crew.logs(m)) {
      if (!line.msg.includes('the document stays in its old place')) continue;
      const row = rows.find((r) => r.path === line['path']);
      if (row) apart.add(row.docKey);
    }
  }
  return apart;
}

/** With the daemons stopped, one `kbsync sync` of each folder changes nothing: no write to the service, no file. */
async function steady(world: World, say: (line: string) => void, problems: string[]): Promise<void> {
  for (const m of world.machines) {
    const before = writes(world);
    const files = await m.files();
    const run = await runCli(['sync', '--json', '--config', m.settings.configPath], { cwd: m.settings.dir, env: m.settings.env });
    const wrote = writes(world) - before;
    const changed = !sameFiles(files, await m.files());
    say(`${m.name}: a one-shot sync after the daemons stopped exited ${String(run.code)}, ${wrote} write call(s), ${changed ? 'files changed' : 'no file changed'}`);
    if (wrote > 0 || changed) problems.push(`not at rest: a \`kbsync sync\` of ${m.name} after the daemons stopped made ${wrote} write call(s)${changed ? ' and changed files' : ''}`);
    if (run.code !== 0 && run.code !== 1) problems.push(`a \`kbsync sync\` of ${m.name} after the daemons stopped exited ${String(run.code)}: ${run.stderr.slice(0, 300)}`);
  }
}

/** The paths each machine's daemon said a notice of (HIDDEN_EDIT: held, or pulled with the notice; FORMATTING_UNSEEN). */
/** How a run says it keeps a document without the id that deletes it (src/sync/act/create.ts). */
const DELETE_ID_LOST_SAID = 'was made by an earlier create whose answer was lost';

function pathsSaid(world: World, crew: DaemonCrew, code: string): Map<string, Set<string>> {
  return new Map(world.machines.map((m) => [m.name, new Set(crew.logs(m).flatMap((line) => (line.msg.includes(code) && typeof line['path'] === 'string' ? [line['path']] : [])))]));
}

/**
 * What the daemons said at warn level and above, by code; a line with no code by its first words (paths and
 * numbers left out). And the notices that come at info level: FORMATTING_SIMPLIFIED, FORMATTING_UNSEEN, HIDDEN_EDIT.
 */
function said(world: World, crew: DaemonCrew): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const m of world.machines) {
    for (const line of crew.logs(m)) {
      if (line.level >= 40) add(typeof line['code'] === 'string' ? line['code'] : words(line.msg));
      else for (const notice of ['FORMATTING_SIMPLIFIED', 'FORMATTING_UNSEEN', 'HIDDEN_EDIT']) if (line.msg.includes(notice)) add(`${notice} (notice)`);
    }
  }
  return counts;
}

const words = (msg: string): string =>
  msg
    .replace(/^[^ ]*\.md: /, '')
    .replace(/\/[^ ]*/g, '…')
    .replace(/\d+/g, 'N')
    .split(/[:;(]/)[0]
    ?.slice(0, 40) ?? '?';

/** The source the shared state keeps for each document at rest, read once when the verdict first asks. */
function sourcesOf(world: World): (docKey: string) => string | undefined {
  let sources: Map<string, string> | undefined;
  return (docKey) => (sources ??= sharedSources(world.em.admin.dump().nodes)).get(docKey);
}
