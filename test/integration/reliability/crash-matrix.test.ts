import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CRASH_POINTS } from '../../../src/sync/run/crash-points.js';
import { createSyncFixture, type FixtureOptions, type SyncFixture } from '../../helpers/sync-fixture.js';
import { syncOnce } from '../../helpers/in-process-sync.js';
import { convergenceProblems, isConflictCopy, localFiles, locallyPresent, remotelyPresent, steadyProblems } from '../../helpers/reliability.js';

/**
 * The crash matrix: every named crash point × every scenario that can reach it. Each cell applies a
 * fresh change to a converged folder, runs `kbsync sync` with KBSYNC_CRASH_AT (the child SIGKILLs
 * itself there), reruns without it, and checks: no duplicate document, no lost edit on either side,
 * both sides converged, and a third run that writes nothing. Each scenario lists the points it passes;
 * a listed point the run does not die at fails the cell, so the list cannot silently go stale.
 */

/** Unique words the checks search for: an edit is "present" when its marker is. */
type Expectation = { readonly remote: readonly string[]; readonly local: readonly string[]; readonly conflicts?: number; readonly files?: readonly string[] };

type Scenario = {
  readonly name: string;
  /** The crash points this scenario passes; each must really kill the run (else the engine changed and the matrix must follow). */
  readonly reaches: readonly string[];
  readonly fixture?: FixtureOptions;
  /** Flags of the crashed run and its rerun. */
  readonly syncArgs?: readonly string[];
  readonly setup: (f: SyncFixture) => Promise<void>;
  /** Applies this cell's change (round `r` keeps markers unique) and says where each edit must end up. */
  readonly change: (f: SyncFixture, r: number) => Promise<Expectation>;
  /**
   * A scenario that leaves a conflict open (held work: exit 1, nothing pushed for that file) settles it
   * after the checks, as a person would, so the next cell starts converged.
   */
  readonly settle?: (f: SyncFixture) => Promise<void>;
};

const para = (words: string): string => `${words}.\n`;

async function syncOk(f: SyncFixture): Promise<void> {
  const run = await syncOnce(f);
  assert.equal(run.code, 0, `setup sync failed: ${run.stderr}`);
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'new files pushed',
    reaches: ['after-intent', 'after-create', 'before-id-append', 'after-id-append', 'after-overwrite', 'before-ledger-commit', 'after-state-append', 'after-create:2', 'after-overwrite:2'],
    setup: async () => {},
    async change(f, r) {
      const a = `newa${r}marker`;
      const b = `newb${r}marker`;
      const c = `newc${r}marker`;
      await f.write(`new-${r}-a.md`, `# New ${r} a\n\n${para(a)}`);
      await f.write(`dir${r}/new-${r}-b.md`, `# New ${r} b\n\n${para(b)}`);
      await f.write(`new-${r}-c.md`, `# New ${r} c\n\n${para(c)}\nSecond paragraph.\n`);
      return { remote: [a, b, c], local: [a, b, c] };
    },
  },
  {
    name: 'local edit pushed',
    reaches: ['after-intent', 'after-overwrite', 'before-ledger-commit', 'before-publish', 'after-state-append', 'after-overwrite:2'],
    async setup(f) {
      for (const n of [1, 2, 3]) await f.write(`e${n}.md`, `# E${n}\n\nFirst paragraph of e${n}.\n\nLast paragraph of e${n}\n`);
      await syncOk(f);
    },
    async change(f, r) {
      const append = `appended${r}marker`;
      const middle = `middle${r}marker`;
      const e1 = await f.read('e1.md');
      // Text appended to the last paragraph only: the cheap append path.
      await f.write('e1.md', `${e1.trimEnd()} ${append}\n`);
      const e2 = await f.read('e2.md');
      await f.write('e2.md', e2.replace(/First paragraph[^\n]*/, `First paragraph ${middle}.`));
      return { remote: [append, middle], local: [append, middle] };
    },
  },
  {
    name: 'remote edit pulled',
    reaches: ['after-intent', 'mid-pull', 'after-local-write', 'before-ledger-commit', 'after-state-append', 'after-local-write:2'],
    async setup(f) {
      for (const n of [1, 2]) await f.write(`p${n}.md`, `# P${n}\n\nOne of p${n}.\n\nTwo of p${n}.\n`);
      await syncOk(f);
    },
    async change(f, r) {
      const markers = [`pulledone${r}marker`, `pulledtwo${r}marker`];
      for (const [i, marker] of markers.entries()) {
        const doc = f.remoteDoc(`P${i + 1}`);
        f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace(/Two of [^\n]*/, `Two of p${i + 1}, ${marker}.`));
      }
      return { remote: markers, local: markers };
    },
  },
  {
    name: 'new remote doc pulled',
    reaches: ['after-intent', 'mid-pull', 'after-local-write', 'before-ledger-commit', 'after-local-write:2'],
    setup: syncOkAfterSeed,
    async change(f, r) {
      const markers = [`remotenewa${r}marker`, `remotenewb${r}marker`];
      f.em.admin.createDocument({ name: `Remote ${r} a`, markdown: `# Remote ${r} a\n\n${para(markers[0] ?? '')}` });
      f.em.admin.createDocument({ name: `Remote ${r} b`, markdown: `# Remote ${r} b\n\n${para(markers[1] ?? '')}` });
      return { remote: markers, local: markers };
    },
  },
  {
    name: 'merge',
    reaches: ['after-intent', 'mid-pull', 'after-local-write', 'after-overwrite', 'before-ledger-commit'],
    // The colleague's edit is read as plain text: without --force the overwrite waits for a word (FLATTEN)
    // and the merge's write, whose crash points this scenario is for, never happens.
    syncArgs: ['--force'],
    async setup(f) {
      for (const n of [1, 2]) await f.write(`m${n}.md`, `# M${n}\n\nAlpha of m${n}.\n\nBeta of m${n}.\n\nGamma of m${n}.\n`);
      await syncOk(f);
    },
    async change(f, r) {
      // m1: different paragraphs on each side (a clean merge); m2: the same paragraph (a conflict).
      const [l1, r1, l2, r2] = [`mergelocal${r}marker`, `mergeremote${r}marker`, `clashlocal${r}marker`, `clashremote${r}marker`];
      const m1 = f.remoteDoc('M1');
      f.em.admin.editDocument(m1.dentryUuid, (m1.markdown ?? '').replace(/Alpha of m1[^\n]*/, `Alpha of m1 ${r1}.`));
      await f.write('m1.md', (await f.read('m1.md')).replace(/Gamma of m1[^\n]*/, `Gamma of m1 ${l1}.`));
      const m2 = f.remoteDoc('M2');
      f.em.admin.editDocument(m2.dentryUuid, (m2.markdown ?? '').replace(/Beta of m2[^\n]*/, `Beta of m2 ${r2}.`));
      await f.write('m2.md', (await f.read('m2.md')).replace(/Beta of m2[^\n]*/, `Beta of m2 ${l2}.`));
      // The clash freezes m2's push: the knowledge base keeps the published words (r2), the file keeps
      // the local ones (l2) and a conflict copy the remote ones, until a person resolves.
      return { remote: [l1, r1, r2], local: [l1, r1, l2, r2], conflicts: 1 };
    },
    async settle(f) {
      const resolved = await f.cli(['resolve', '--mine']);
      assert.equal(resolved.code, 0, `resolve --mine failed: ${resolved.stderr}`);
      await syncOk(f);
    },
  },
  {
    // Model seed 110154: a file deleted here came back at its old path, though its document had been moved
    // meanwhile; to every machine that followed the move, that was a rename of the file.
    name: 'deleted file restored where its document moved',
    reaches: ['after-intent', 'mid-pull', 'after-local-write', 'before-ledger-commit', 'after-local-write:2'],
    setup: async (f) => {
      // Enough files that two deletes planned (before the read finds the edits) stay under the mass-delete guard.
      for (let n = 0; n < 6; n += 1) await f.write(`ops/other-${n}.md`, `# Other ${n}\n\nSo the folder is there.\n`);
      await syncOk(f);
    },
    async change(f, r) {
      const names = [`back-${r}-a`, `back-${r}-b`];
      for (const name of names) await f.write(`${name}.md`, `# ${name}\n\nWritten here.\n`);
      await syncOk(f);
      const ops = f.em.admin.dump().nodes.find((n) => n.docType === 'FOLDER' && n.title === 'ops');
      assert.ok(ops);
      const markers = names.map((name) => `${name.replaceAll('-', '')}marker`);
      for (const [i, name] of names.entries()) {
        await f.remove(`${name}.md`);
        const doc = f.remoteDoc(name);
        f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Written here.', `Written here, then ${markers[i] ?? ''}.`));
        f.em.admin.moveNode(doc.dentryUuid, ops.dentryUuid);
      }
      return { remote: markers, local: markers, files: names.map((name) => `ops/${name}.md`) };
    },
  },
  {
    // Small state documents (a test knob): the edit's records fill a third index document, and the run compacts.
    name: 'shared state compacted',
    reaches: ['mid-compaction'],
    fixture: { env: { KBSYNC_STATE_DOC_CHARS: '2000' } },
    async setup(f) {
      for (let n = 0; n < 30; n += 1) await f.write(`c${n}.md`, `# C${n}\n\nText of c${n}.\n`);
      // Each new document's ids, its announced first body and its record: with the cell's edits, the superseded
      // records outweigh the live ones (a compaction is started when they do), whatever else the records say
      // (a re-checked time, a minute boundary). A round of edits here would compact before the cell.
      await syncOk(f);
    },
    async change(f, r) {
      const markers = Array.from({ length: 30 }, (_, n) => `compacted${r}n${n}marker`);
      for (const [n, marker] of markers.entries()) await f.write(`c${n}.md`, `# C${n}\n\nText of c${n}, ${marker}.\n`);
      // A new file: the run lists the service and reads the state, which a compaction needs.
      const added = `compactednew${r}marker`;
      await f.write(`new-${r}.md`, `# New ${r}\n\n${para(added)}`);
      return { remote: [...markers, added], local: [...markers, added] };
    },
  },
];

async function syncOkAfterSeed(f: SyncFixture): Promise<void> {
  await f.write('seed.md', '# Seed\n\nSo the folder is not empty.\n');
  await syncOk(f);
}

/** Crash points, plus a few later occurrences (`:2`) that hit the second document of a run mid-flight. */
const POINTS: readonly string[] = [...CRASH_POINTS, 'after-create:2', 'after-overwrite:2', 'after-local-write:2'];

type Cell = { readonly point: string; readonly scenario: string; readonly outcome: string; readonly problems: readonly string[] };

async function runCell(f: SyncFixture, scenario: Scenario, point: string, round: number): Promise<Cell> {
  const expected = await scenario.change(f, round);
  const crashed = await f.sync([...(scenario.syncArgs ?? [])], { KBSYNC_CRASH_AT: point });
  const problems: string[] = [];
  if (crashed.signal !== 'SIGKILL') problems.push(`the run did not reach ${point} (exit ${String(crashed.code)}); update the scenario's reach list`);
  const rerun = await f.sync([...(scenario.syncArgs ?? [])]);
  const conflicts = expected.conflicts ?? 0;
  const open = [...(await localFiles(f.root)).keys()].filter((path) => isConflictCopy(path)).length;
  if (open !== conflicts) problems.push(`rerun left ${open} conflicts open, expected ${conflicts}`);
  if (rerun.code !== (conflicts > 0 ? 1 : 0)) problems.push(`rerun exited ${String(rerun.code)}: ${rerun.stderr.slice(0, 300)} ${JSON.stringify(rerun.report?.results.filter((x) => !x.ok))}`);
  problems.push(...(await convergenceProblems(f)));
  for (const marker of expected.remote) if (!remotelyPresent(f, marker)) problems.push(`lost remotely: ${marker}`);
  for (const marker of expected.local) if (!(await locallyPresent(f, marker))) problems.push(`lost locally: ${marker}`);
  const present = await localFiles(f.root);
  for (const path of expected.files ?? []) if (!present.has(path)) problems.push(`no file at ${path}: ${[...present.keys()].join(', ')}`);
  problems.push(...(await steadyProblems(f, { allowHeld: conflicts > 0 })));
  await scenario.settle?.(f);
  const resumed = rerun.report?.resumed ?? 0;
  return { point, scenario: scenario.name, outcome: problems.length > 0 ? 'FAILED' : `ok (${resumed} resumed)`, problems };
}

async function runScenario(scenario: Scenario): Promise<Cell[]> {
  const f = await createSyncFixture(scenario.fixture);
  try {
    await scenario.setup(f);
    const cells: Cell[] = [];
    for (const [round, point] of scenario.reaches.entries()) cells.push(await runCell(f, scenario, point, round));
    return cells;
  } finally {
    await f.close();
  }
}

function table(cells: readonly Cell[]): string {
  const names = SCENARIOS.map((s) => s.name);
  const width = Math.max(...POINTS.map((p) => p.length), 'crash point'.length);
  const cols = names.map((n) => Math.max(n.length, 'ok (10 resumed)'.length));
  const row = (first: string, rest: readonly string[]): string => `| ${first.padEnd(width)} | ${rest.map((c, i) => c.padEnd(cols[i] ?? 0)).join(' | ')} |`;
  const lines = [row('crash point', names), `|${'-'.repeat(width + 2)}|${cols.map((w) => '-'.repeat(w + 2)).join('|')}|`];
  for (const point of POINTS) {
    lines.push(row(point, names.map((name) => cells.find((c) => c.point === point && c.scenario === name)?.outcome ?? '-')));
  }
  return lines.join('\n');
}

test('crash matrix: every crash point × scenario recovers with nothing lost, nothing duplicated, and a steady third run', async () => {
  // Two scenarios at a time: each has its own emulator and folder.
  const cells: Cell[] = [];
  // MATRIX_SCENARIO=merge runs one scenario while working on it (the full matrix then fails on coverage).
  const queue = SCENARIOS.filter((s) => !process.env.MATRIX_SCENARIO || s.name === process.env.MATRIX_SCENARIO);
  await Promise.all(
    [0, 1].map(async () => {
      for (let next = queue.shift(); next; next = queue.shift()) cells.push(...(await runScenario(next)));
    }),
  );
  const failed = cells.filter((c) => c.problems.length > 0);
  console.log(
    `\ncrash points × outcomes: ${cells.length - failed.length} of ${cells.length} crashes recovered ` +
      `("ok (n resumed)": the rerun found n open intents and reconciled them; "-": the scenario never passes that point)\n${table(cells)}\n`,
  );
  assert.deepEqual(
    failed.map((c) => `${c.point} × ${c.scenario}:\n  ${c.problems.join('\n  ')}`),
    [],
  );
  // Every named point is in the matrix, or it proves nothing about it.
  for (const point of CRASH_POINTS) assert.ok(cells.some((c) => c.point === point), `no scenario reaches ${point}`);
});
