import { CRASH_POINTS } from '../../src/sync/run/crash-points.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { createSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { convergenceProblems, normaliseBody, steadyProblems } from '../helpers/reliability.js';
import { USER_ACTIONS, type World } from './actions.js';
import { Random } from './random.js';
import { Texts } from './text.js';
import { VersionBook } from './versions.js';

/**
 * The seeded randomized ("chaos") test: a model-based driver that interleaves random actions of two
 * users (one on the folder, one in the knowledge base) with syncs — plain, crashing at a random crash
 * point, or under random faults — and checks after every step that no version was lost (see
 * VersionBook), and at quiet points (a few fault-free syncs) that both sides agree, that no document
 * is duplicated, and that a further sync writes nothing.
 *
 * A seed fixes the sequence of actions; kbsync's own timing (24 documents at once, a crash point's
 * n-th hit, the service's minute clock) may still vary between replays, so a failure is reported with
 * the full step log, which is what to read first.
 */
export type ChaosOptions = {
  readonly seed: number;
  readonly steps: number;
  /** Quiesce and check agreement every this many steps (and always at the end). */
  readonly quiesceEvery?: number;
  readonly onStep?: (line: string) => void;
};

export type ChaosStats = {
  steps: number;
  syncs: number;
  crashes: number;
  faultRuns: number;
  faultsInjected: number;
  quiescences: number;
  versionsTracked: number;
  versionsForgotten: number;
};

export class ChaosFailure extends Error {
  readonly seed: number;
  readonly log: readonly string[];

  constructor(seed: number, step: number, problems: readonly string[], log: readonly string[]) {
    super(`chaos seed ${seed} failed at step ${step}:\n  ${problems.join('\n  ')}\n\nstep log (replay: npm run chaos -- --seed ${seed} --steps ${step}):\n${log.join('\n')}`);
    this.seed = seed;
    this.log = log;
  }
}

const SYNC_KINDS = {
  sync: 10,
  'crash-sync': 6,
  'fault-sync': 4,
  'push-sync': 1,
  'pull-sync': 1,
} as const;
type SyncKind = keyof typeof SYNC_KINDS;

const USER_WEIGHTS: Readonly<Record<string, number>> = {
  'local-create': 5,
  'local-edit': 7,
  'local-delete': 2,
  'local-rename': 1.5,
  'local-move': 1.5,
  'remote-create': 3,
  'remote-edit': 6,
  'remote-delete': 1.5,
};

const WEIGHTS: Readonly<Record<string, number>> = { ...USER_WEIGHTS, ...SYNC_KINDS };

/** Fault specs a run may meet; each also gets a random fault seed. */
const FAULTS = [
  '5xx=0.2',
  'reset=0.1',
  '429=0.3',
  'drop=0.5,only=createDocument',
  'drop=0.3,only=overwriteContent|appendText|deleteDocument',
  'drop=0.1',
  'listFailPage=1',
  '5xx=0.1,reset=0.05,latency=50',
];

export async function runChaos(options: ChaosOptions): Promise<ChaosStats> {
  const rng = new Random(options.seed);
  const f = await createSyncFixture({ emulator: { seed: options.seed } });
  const log: string[] = [];
  const say = (line: string): void => {
    log.push(line);
    options.onStep?.(line);
  };
  let counter = 0;
  const world: World = { f, rng, texts: new Texts(rng), next: () => ++counter };
  const versions = new VersionBook();
  const stats: ChaosStats = { steps: 0, syncs: 0, crashes: 0, faultRuns: 0, faultsInjected: 0, quiescences: 0, versionsTracked: 0, versionsForgotten: 0 };
  const fail = (step: number, problems: readonly string[]): never => {
    throw new ChaosFailure(options.seed, step, problems, log);
  };

  try {
    say(`seed ${options.seed}, ${options.steps} steps`);
    // A world to start from: a few files and a few documents made elsewhere.
    for (const kind of ['local-create', 'local-create', 'local-create', 'local-create', 'remote-create', 'remote-create']) {
      say(`#0 ${(await USER_ACTIONS[kind]?.(world)) ?? ''}`);
    }
    for (let step = 1; step <= options.steps; step++) {
      stats.steps = step;
      const kind = rng.weighted(WEIGHTS);
      if (kind in SYNC_KINDS) {
        await syncStep(world, kind as SyncKind, step, versions, stats, say, fail);
      } else {
        // One to three user actions between two syncs: changes pile up as they do between real syncs.
        const count = rng.int(1, 3);
        for (let i = 0; i < count; i++) {
          const line = await USER_ACTIONS[i === 0 ? kind : rng.weighted(USER_WEIGHTS)]?.(world);
          if (line !== undefined) say(`#${step} ${line}`);
        }
        await versions.forgetDestroyed(f);
      }
      if (step % (options.quiesceEvery ?? 10) === 0 || step === options.steps) await quiesce(world, step, versions, stats, say, fail);
    }
    stats.versionsTracked = versions.tracked;
    stats.versionsForgotten = versions.forgotten;
    return stats;
  } finally {
    await f.close();
  }
}

type Say = (line: string) => void;
type Fail = (step: number, problems: readonly string[]) => never;

async function syncStep(world: World, kind: SyncKind, step: number, versions: VersionBook, stats: ChaosStats, say: Say, fail: Fail): Promise<void> {
  const { f, rng } = world;
  await versions.noteCurrent(f, step);
  stats.syncs++;
  let label: string = kind;
  let run;
  if (kind === 'crash-sync') {
    const at = `${rng.pick(CRASH_POINTS)}:${rng.int(1, 2)}`;
    label = `sync crashing at ${at}`;
    run = await f.sync([], { KBSYNC_CRASH_AT: at });
    if (run.signal === 'SIGKILL') stats.crashes++;
  } else if (kind === 'fault-sync') {
    const spec = `${rng.pick(FAULTS)},seed=${rng.int(1, 1_000_000)}`;
    label = `sync under faults ${spec}`;
    const before = f.em.admin.calls().faults;
    f.em.admin.setFaults(spec);
    try {
      run = await f.sync();
    } finally {
      f.em.admin.setFaults({});
    }
    stats.faultRuns++;
    stats.faultsInjected += f.em.admin.calls().faults - before;
  } else {
    run = await f.sync(kind === 'push-sync' ? ['--push'] : kind === 'pull-sync' ? ['--pull'] : []);
  }
  say(`#${step} ${label} → ${run.signal ?? `exit ${String(run.code)}`}${summarise(run.report)}`);
  const lost = await versions.missing(f);
  if (lost.length > 0) fail(step, [`versions lost by this sync:`, ...lost]);
  // A plain two-way run that reports full success has left both sides in agreement.
  if (kind === 'sync' && run.code === 0) {
    const problems = await convergenceProblems(f);
    if (problems.length > 0) fail(step, ['a successful two-way sync did not converge:', ...problems]);
  }
}

/** Fault-free syncs until one succeeds (held deletes allowed), then agreement, no duplicates, and a steady run. */
async function quiesce(world: World, step: number, versions: VersionBook, stats: ChaosStats, say: Say, fail: Fail): Promise<void> {
  const { f } = world;
  stats.quiescences++;
  let settled = false;
  for (let attempt = 1; attempt <= 4 && !settled; attempt++) {
    await versions.noteCurrent(f, step);
    let run = await f.sync();
    if (run.code === 3) {
      // A guard refused (mass delete, empty side): what a user does after reading the message.
      say(`#${step} quiesce: refused by a guard (${run.stderr.split('\n')[0] ?? ''}); rerun with --force`);
      run = await f.sync(['--force']);
    }
    say(`#${step} quiesce sync ${attempt} → ${run.signal ?? `exit ${String(run.code)}`}${summarise(run.report)}`);
    const lost = await versions.missing(f);
    if (lost.length > 0) fail(step, ['versions lost by a quiescing sync:', ...lost]);
    settled = run.code === 0 || (run.code === 1 && onlyHeld(run.report));
  }
  if (!settled) fail(step, ['four fault-free syncs did not settle']);
  const problems = [...(await convergenceProblems(f, { allowHeld: true })), ...contentDuplicates(f), ...(await steadyProblems(f, { allowHeld: true }))];
  if (problems.length > 0) fail(step, ['after quiescence:', ...problems]);
  say(`#${step} quiet: both sides agree (${f.remoteDocs().length} documents), steady`);
}

/** Every generated body and title is unique, so two documents alike, or a "Title (2)", is a copy kbsync made. */
function contentDuplicates(f: SyncFixture): string[] {
  const byBody = new Map<string, string[]>();
  const problems: string[] = [];
  for (const doc of f.remoteDocs()) {
    if (/ \(\d+\)$/.test(doc.title)) problems.push(`remote title "${doc.title}" was made unique: a second document for one title`);
    const body = normaliseBody(doc.markdown ?? '');
    if (body !== '') byBody.set(body, [...(byBody.get(body) ?? []), doc.title]);
  }
  for (const titles of byBody.values()) if (titles.length > 1) problems.push(`documents with one body: ${titles.join(', ')}`);
  return problems;
}

function onlyHeld(report: SyncReport | undefined): boolean {
  // `failed` counts held files too; held is what this allows, so it asks for no failed action and no refused file.
  return report !== undefined && report.problems.length === 0 && report.results.every((r) => r.ok);
}

function summarise(report: SyncReport | undefined): string {
  if (!report) return '';
  const counts = Object.entries(report.counts)
    .filter(([key]) => key !== 'unchanged')
    .map(([key, n]) => `${key} ${n}`);
  const failures = report.results.flatMap((r) => (r.ok ? [] : [`${r.path}: ${r.code}`]));
  return `${counts.length > 0 ? ` [${counts.join(', ')}]` : ''}${failures.length > 0 ? ` failed: ${failures.join('; ')}` : ''}${report.resumed > 0 ? ` resumed ${report.resumed}` : ''}`;
}
