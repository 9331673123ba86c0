import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_POINTS } from '../../src/sync/run/crash-points.js';
import { ID_WINDOW } from '../../src/sync/state/journal.js';
import { nodeUrl } from '../../src/emulator/views.js';
import { foldedState, idProblems } from './state-reader.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { createSyncFixture, type SyncFixture } from './sync-fixture.js';

/**
 * The crash matrix of a document's identity: a move or a create killed at each of its crash points converges
 * on the next runs, or is said on every run until it does: never a document left beside its replacement,
 * never a run that fails once and then exits 0 over a leftover, never more creation ids lost than the creates a
 * run may have waiting for them (one with a ledger, ID_WINDOW without: src/sync/state/journal.ts). Run as a
 * CI job does (a fresh checkout every time: no ledger) and as a workstation does, one test file each
 * (test/integration/reliability/identity-crash-*.test.ts).
 */

const EXPLORE = process.env['IDENTITY_CRASH_EXPLORE'] === '1';

type Who = 'ci' | 'workstation';

async function run(f: SyncFixture, who: Who, env: Record<string, string> = {}) {
  if (who === 'ci') await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  return f.sync(who === 'ci' ? ['--push'] : [], env);
}

const FILES: Readonly<Record<string, string>> = {
  'intro.md': '# Intro\n\nWelcome.\n',
  'setup.md': '# Setup\n\nInstall it.\n',
  'faq.md': '# FAQ\n\nQuestions.\n',
};

type Change = {
  readonly name: string;
  apply(f: SyncFixture): Promise<void>;
  /** The user documents once converged, as `folder/title`, and the state's entries (paths). */
  readonly docs: readonly string[];
  readonly entries: readonly string[];
  /** The files whose documents the change made: deleted afterwards, each document is deleted or said with its URL. */
  readonly made: readonly string[];
  /** The crash points the change passes (a point a run does not die at fails its cell, so the list cannot go stale). */
  readonly reaches: readonly string[];
};

const MOVE_POINTS = ['after-intent', 'after-intent:2', 'after-intent:3', 'after-create', 'before-id-append', 'after-overwrite', 'before-ledger-commit', 'before-ledger-commit:2', 'before-ledger-commit:3', 'after-id-append', 'after-id-append:2', 'before-publish', 'after-state-append'];

const CHANGES: readonly Change[] = [
  {
    name: 'a move to another folder',
    async apply(f) {
      await mkdir(join(f.root, 'guide'));
      await rename(join(f.root, 'setup.md'), join(f.root, 'guide/setup.md'));
    },
    docs: ['/FAQ', '/Intro', 'guide/Setup'],
    entries: ['faq.md', 'guide/setup.md', 'intro.md'],
    made: ['guide/setup.md'],
    reaches: MOVE_POINTS,
  },
  {
    name: 'two creates',
    async apply(f) {
      await f.write('news.md', '# News\n\nNothing yet.\n');
      await f.write('later.md', '# Later\n\nSoon.\n');
    },
    docs: ['/FAQ', '/Intro', '/Later', '/News', '/Setup'],
    entries: ['faq.md', 'intro.md', 'later.md', 'news.md', 'setup.md'],
    made: ['later.md', 'news.md'],
    reaches: [...MOVE_POINTS, 'after-create:2', 'before-id-append:2', 'after-overwrite:2'],
  },
];

/** Every user document as `folder/title`. */
function docs(f: SyncFixture): string[] {
  const nodes = f.em.admin.dump().nodes;
  return f
    .remoteDocs()
    .map((doc) => `${nodes.find((n) => n.dentryUuid === doc.parentId && n.docType === 'FOLDER')?.title ?? ''}/${doc.title}`)
    .sort();
}

type Cell = { readonly reached: boolean; readonly problems: readonly string[] };

/** The words of a run's results (details and hold messages), to find what it said about a document. */
const said = (report: SyncReport | undefined): string => JSON.stringify([...(report?.results ?? []), ...(report?.notices ?? [])]);

/**
 * Killed at `point`, then four runs a few minutes apart (a document a kill left empty is held a minute or two,
 * JUST_CREATED): they converge on the change's documents and entries, the last one steady and exit 0. The kill
 * loses at most the window's creation ids (the CI job's two creates share one); each such document is said once,
 * with its URL. Then the change's files are deleted: every document whose id is known is deleted, the others
 * said with their URL, and the runs exit 0; once a person deletes those in the web editor, they are forgotten.
 */
async function cell(who: Who, change: Change, point: string): Promise<Cell> {
  const f = await createSyncFixture();
  try {
    for (const [path, text] of Object.entries(FILES)) await f.write(path, text);
    const first = await run(f, who);
    assert.equal(first.code, 0, first.stderr);
    f.em.admin.setClockOffset(2 * 60_000);
    await change.apply(f);
    const killed = await run(f, who, { KBSYNC_CRASH_AT: point });
    if (killed.signal !== 'SIGKILL') return { reached: false, problems: [] };
    const problems: string[] = [];
    // The documents the kill left without their creation id in the state (a workstation's ledger may still have it).
    const unrecorded = new Set(idProblems(f).map((problem) => /^"(.*?)"/.exec(problem)?.[1] ?? problem));
    const codes: number[] = [];
    const words: string[] = [];
    for (let n = 0; n < 4; n++) {
      f.em.admin.setClockOffset((3 + 2 * n) * 60_000);
      const next = await run(f, who);
      codes.push(next.code ?? -1);
      words.push(said(next.report));
      if (n === 3 && next.code !== 0) problems.push(`the fourth run after the kill exits ${String(next.code)}: ${next.stderr.slice(0, 300)} ${JSON.stringify(next.report?.results.filter((r) => !r.ok || r.result === 'held'))}`);
      if (n === 3 && (next.report?.planned.length ?? 0) > 0) problems.push(`the fourth run still plans ${JSON.stringify(next.report?.planned)}`);
    }
    const found = docs(f);
    if (JSON.stringify(found) !== JSON.stringify(change.docs)) problems.push(`documents ${JSON.stringify(found)}, expected ${JSON.stringify(change.docs)} (runs after the kill: ${codes.join(', ')})`);
    const entries = [...foldedState(f).entries.keys()].sort();
    if (JSON.stringify(entries) !== JSON.stringify(change.entries)) problems.push(`the state's entries ${JSON.stringify(entries)}`);
    // What the kill lost for good: the ids the state still lacks once converged (a workstation's ledger published its own).
    const lacking = idProblems(f);
    const lost = f.remoteDocs().filter((doc) => lacking.some((problem) => problem.startsWith(`"${doc.title}"`)));
    const window = who === 'ci' ? ID_WINDOW : 1;
    if (lost.length > window) problems.push(`the kill lost ${lost.length} creation ids (${lost.map((doc) => doc.title).join(', ')}; without their id in the state after the kill: ${[...unrecorded].join(', ')}): at most ${window} create(s) may be in that window`);
    for (const doc of lost) {
      const times = words.filter((text) => text.includes(urlOf(f, doc.dentryUuid))).length;
      if (times !== 1) problems.push(`the lost id of "${doc.title}" was said ${times} times with its URL, not once: ${words.join('\n')}`);
    }

    for (const path of change.made) await f.remove(path);
    const gone = await run(f, who);
    const again = await run(f, who);
    for (const [what, result] of [['the run that deletes the files', gone], ['the run after it', again]] as const) {
      if (result.code !== 0) problems.push(`${what} exits ${String(result.code)}: ${JSON.stringify(result.report?.results.filter((r) => !r.ok || r.result === 'held'))}`);
    }
    const left = f.remoteDocs().filter((doc) => change.made.some((path) => doc.title.toLowerCase() === path.replace(/^.*\//, '').replace(/\.md$/, '')));
    if (JSON.stringify(left.map((doc) => doc.dentryUuid)) !== JSON.stringify(lost.map((doc) => doc.dentryUuid))) problems.push(`left after the files were deleted: ${left.map((doc) => doc.title).join(', ')}; lost ids: ${lost.map((doc) => doc.title).join(', ')}`);
    for (const doc of left) if (!said(gone.report).includes(urlOf(f, doc.dentryUuid))) problems.push(`the deletion of "${doc.title}"'s file did not say its URL: ${said(gone.report)}`);
    // The person deletes it in the web editor: kbsync forgets it.
    for (const doc of left) f.em.admin.deleteNode(doc.dentryUuid);
    const forgotten = await run(f, who);
    if (forgotten.code !== 0) problems.push(`the run after the person deleted it exits ${String(forgotten.code)}`);
    const steady = await run(f, who);
    if ((steady.report?.planned.length ?? 0) > 0) problems.push(`still planned at the end: ${JSON.stringify(steady.report?.planned)}`);
    return { reached: true, problems };
  } finally {
    await f.close();
  }
}

/** A document's URL as the service gives it. */
const urlOf = (f: SyncFixture, docKey: string): string => nodeUrl(f.em.seed.baseUrl, docKey);

/** IDENTITY_CRASH_EXPLORE=1 tries every point (and its second and third occurrence) instead, and prints those reached. */
const EVERY_POINT = CRASH_POINTS.flatMap((point) => [point, `${point}:2`, `${point}:3`]);

/** Runs `tasks` two at a time (each cell has its own emulator and folder). */
async function inPairs<T>(tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const queue = [...tasks.entries()];
  const out: T[] = [];
  await Promise.all(
    [0, 1].map(async () => {
      for (let next = queue.shift(); next; next = queue.shift()) out[next[0]] = await next[1]();
    }),
  );
  return out;
}

/** The matrix for one kind of runner: a test per change, each of its crash points a cell (two at a time). */
export function identityCrashMatrix(who: Who): void {
  describe(`a move or create killed at any crash point converges: ${who === 'ci' ? 'a CI job (no ledger)' : 'a workstation'}`, () => {
    for (const change of CHANGES) {
      const points = EXPLORE ? EVERY_POINT : change.reaches;
      test(`${change.name}: ${points.length} crash points`, async () => {
        const cells = await inPairs(points.map((point) => () => cell(who, change, point)));
        const reached = points.filter((_, i) => cells[i]?.reached);
        if (EXPLORE) console.log(`${change.name} (${who}) reaches ${JSON.stringify(reached)}`);
        else assert.deepEqual(points.filter((_, i) => !cells[i]?.reached), [], 'every listed crash point kills the run');
        assert.deepEqual(
          points.flatMap((point, i) => ((cells[i]?.problems.length ?? 0) > 0 ? [`${point}:\n  ${cells[i]?.problems.join('\n  ')}`] : [])),
          [],
        );
      });
    }
  });
}
