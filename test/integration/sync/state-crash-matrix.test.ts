import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { startEmulator } from '../../../src/emulator/index.js';
import { ID_WINDOW } from '../../../src/sync/state/journal.js';
import { foldedState, idProblems } from '../../helpers/state-reader.js';
import { createSyncFixture, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { ledgerRows } from '../../helpers/reliability.js';

/**
 * The crash matrix over every shared-state write of a docs-as-code job: the job killed (SIGKILL) at each
 * point, then jobs without a ledger (a fresh checkout each time). Every creation id the service gave must
 * be in the state, no document may be made twice, and a later deletion in the repository must delete
 * the document (not hold it as one kbsync cannot delete). A create's id is appended before its body is
 * sent; what a kill can still lose is the id of a create that answered after the last append finished.
 */
async function ciRun(f: SyncFixture, env: Record<string, string> = {}) {
  await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  return f.sync(['--push'], env);
}

const titles = (f: SyncFixture): string[] => f.remoteDocs().map((doc) => doc.title).sort();

/**
 * Killed at `point`, then: every document made by then is in the state with its creation id, except those
 * whose create answered after the last append the run finished (the window; none once `complete`); a
 * rerun converges with one document per file and is steady; deleting files deletes their documents (a
 * document of the window, adopted by its title, is held instead: its id was never recorded).
 */
async function crashAndRecover(f: SyncFixture, point: string, expected: { readonly titles: readonly string[]; readonly remove: readonly string[]; readonly complete: boolean }): Promise<void> {
  const killed = await ciRun(f, { KBSYNC_CRASH_AT: point });
  assert.equal(killed.signal, 'SIGKILL', `the run reached ${point}: ${killed.stdout}\n${killed.stderr}`);
  const window = new Set(unrecorded(f));
  if (expected.complete) assert.deepEqual([...window], [], `killed at ${point}: every document made so far is in the state with its creation id`);
  const rerun = await rerunAfterHolds(f, window.size);
  assert.equal(rerun.code, 0, `${rerun.stdout}\n${rerun.stderr}`);
  assert.deepEqual(titles(f), [...expected.titles].sort(), 'one document per file');
  assert.deepEqual(unrecorded(f).filter((title) => !window.has(title)), [], 'every id recorded before the kill, and every id of the rerun, is in the state');
  const steady = await ciRun(f);
  assert.deepEqual(steady.report?.planned, [], 'a further fresh checkout has nothing to do');
  const titleOf = new Map(f.remoteDocs().map((doc) => [doc.dentryUuid, doc.title]));
  const docOf = (path: string): string => titleOf.get([...foldedState(f).entries.values()].find((entry) => entry.p === path)?.k ?? '') ?? '';
  const removed = expected.remove.map((path) => ({ path, title: docOf(path) }));
  for (const { path } of removed) await f.remove(path);
  const deleted = await ciRun(f);
  assert.deepEqual(
    deleted.report?.planned.map((p) => `${p.kind} ${p.path}`).sort(),
    removed.map(({ path, title }) => `${window.has(title) ? 'held' : 'delete-remote'} ${path}`).sort(),
  );
  const gone = new Set(removed.filter(({ title }) => !window.has(title)).map(({ title }) => title));
  assert.deepEqual(titles(f), expected.titles.filter((title) => !gone.has(title)).sort());
}

/**
 * The job after a kill. Run at once, it holds (JUST_CREATED) each document the kill left empty with neither its
 * id nor its body in the state (at most `window` of them): nothing tells it from another writer's new document
 * whose first body is on its way. The job after that, two minutes on, fills them: that is the rerun returned.
 */
async function rerunAfterHolds(f: SyncFixture, window: number) {
  const rerun = await ciRun(f);
  const held = rerun.report?.results.filter((r) => !r.ok || r.result === 'held') ?? [];
  if (held.length === 0) return rerun;
  assert.equal(rerun.code, 1, `${rerun.stdout}\n${rerun.stderr}`);
  assert.ok(held.length <= window, `only documents of the window are held: ${JSON.stringify(held)}`);
  for (const r of held) assert.ok(r.ok && r.reason === 'JUST_CREATED', JSON.stringify(r));
  f.em.admin.setClockOffset(2 * 60_000);
  return ciRun(f);
}

/** Titles of the documents whose creation id the state lacks (or has wrong). */
const unrecorded = (f: SyncFixture): string[] => idProblems(f).map((problem) => /^"(.*?)"/.exec(problem)?.[1] ?? problem);

const FIRST: Readonly<Record<string, string>> = {
  'intro.md': '# Intro\n\nWelcome.\n',
  'setup.md': '# Setup\n\nInstall it.\n',
  'faq.md': '# FAQ\n\nQuestions.\n',
  'news.md': '# News\n\nNothing yet.\n',
};

describe('the shared state at every crash point of a CI job', () => {
  for (const point of ['after-id-append:1', 'before-ledger-commit:3', 'after-overwrite:4', 'after-state-append:1']) {
    test(`the first publish, killed at ${point}`, async () => {
      await withSyncFixture(async (f) => {
        for (const [path, text] of Object.entries(FIRST)) await f.write(path, text);
        await crashAndRecover(f, point, { titles: ['FAQ', 'Intro', 'News', 'Setup'], remove: ['setup.md', 'news.md'], complete: point === 'after-overwrite:4' || point === 'after-state-append:1' });
      });
    });
  }

  for (const point of ['after-id-append:1', 'after-state-append:1']) {
    test(`a later job that moves a file to a new folder, adds one and deletes one, killed at ${point}`, async () => {
      await withSyncFixture(async (f) => {
        for (const [path, text] of Object.entries(FIRST)) await f.write(path, text);
        assert.equal((await ciRun(f)).code, 0);
        await mkdir(join(f.root, 'guide'));
        await rename(join(f.root, 'setup.md'), join(f.root, 'guide/setup.md'));
        await f.write('guide/usage.md', '# Usage\n\nRun it.\n');
        await f.remove('news.md');
        await crashAndRecover(f, point, { titles: ['FAQ', 'Intro', 'Setup', 'Usage'], remove: ['guide/setup.md', 'intro.md'], complete: point === 'after-state-append:1' });
      });
    });
  }

  // State chaos seed 14: the job's ledger (and the intent that knew its write) went with the checkout, so the next
  // job took the job's own write for a colleague's plain-text edit: every later push of the file was held FLATTEN.
  for (const point of ['after-overwrite:1', 'before-ledger-commit:1']) {
    test(`a job that edits a formatted file, killed at ${point}; the next commit edits it again: the next job pushes it, nothing held`, async () => {
      await withSyncFixture(async (f) => {
        const first = '# Guide\n\nRead **this** first, then [the setup](https://example.com/setup).\n\nThen the rest.\n';
        await f.write('guide.md', first);
        await f.write('other.md', '# Other\n\nElsewhere.\n');
        assert.equal((await ciRun(f)).code, 0);
        f.em.admin.setClockOffset(2 * 60_000);
        const edited = first.replace('Then the rest.', 'Then the *rest*, carefully.');
        await f.write('guide.md', edited);
        const killed = await ciRun(f, { KBSYNC_CRASH_AT: point });
        assert.equal(killed.signal, 'SIGKILL', `the run reached ${point}: ${killed.stdout}\n${killed.stderr}`);

        f.em.admin.setClockOffset(4 * 60_000);
        const again = edited.replace('# Guide\n\n', '# Guide\n\nA new *first* line.\n\n');
        await f.write('guide.md', again);
        const next = await ciRun(f);
        assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
        assert.deepEqual(next.report?.results.filter((r) => r.ok && r.result === 'held'), [], 'nothing held');
        assert.equal(f.remoteDoc('Guide').markdown, again, 'the knowledge base has both commits, formatting and all');
        const steady = await ciRun(f);
        assert.deepEqual(steady.report?.planned, [], 'a further fresh checkout has nothing to do');
      });
    });
  }

  test('killed right after a create answers, before its id is appended (the window the ledger has too): no duplicate', async () => {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(FIRST)) await f.write(path, text);
      const killed = await ciRun(f, { KBSYNC_CRASH_AT: 'after-create:1' });
      assert.equal(killed.signal, 'SIGKILL');
      // The kill cut off the first create's answer; others of the job's window may have answered by then (how many
      // is the machine's load): each is a document without its id in the state, and only those may be held.
      const lost = unrecorded(f);
      assert.ok(lost.length >= 1 && lost.length <= ID_WINDOW, `the kill lost the ids of 1 to ${ID_WINDOW} documents: ${lost.join(', ')}`);
      const rerun = await rerunAfterHolds(f, lost.length);
      assert.equal(rerun.code, 0, `${rerun.stdout}\n${rerun.stderr}`);
      assert.deepEqual(titles(f), ['FAQ', 'Intro', 'News', 'Setup'], 'a document whose answer was lost is adopted, not made again');
      const steady = await ciRun(f);
      assert.deepEqual(steady.report?.planned, [], 'a further fresh checkout has nothing to do');
    });
  });
});

describe('the shared state when a workstation is killed between its actions and its publish', () => {
  // State chaos seed 15: the `gone` record of a delete the ledger had committed was kept only in memory, so a
  // kill before the run's publish left the state pairing the path with a deleted document on every machine.
  // The two deletes run side by side, so which of them has got how far when the second one's intent is written is
  // the machine's timing (on a loaded machine the first had not answered yet, and a count of documents failed the
  // test, issue 48). A proxy puts them in one order instead: each case below meets its state on every run.
  for (const order of ['the first committed', 'the first unanswered'] as const) {
    test(`two deletes, killed as the second starts, ${order}: the rerun tells the state of both`, async () => {
      await withDeletesInOrder(order, async (f, inOrder) => {
        for (const [path, text] of Object.entries(FIRST)) await f.write(path, text);
        assert.equal((await f.sync()).code, 0);
        await f.remove('setup.md');
        await f.remove('news.md');
        const killed = await inOrder(() => f.sync([], { KBSYNC_CRASH_AT: 'after-intent:2' }));
        assert.equal(killed.signal, 'SIGKILL', `${killed.stdout}\n${killed.stderr}`);
        // Either way the first delete reached the service: committed in the ledger, or made with its answer lost.
        assert.equal(titles(f).length, 3, 'one document was deleted before the kill');
        assert.deepEqual(
          ledgerRows(f).map((row) => row.path).filter((path) => path === 'setup.md' || path === 'news.md').length,
          order === 'the first committed' ? 1 : 2,
          order === 'the first committed' ? "the first delete's record was dropped before the kill" : 'neither delete was recorded before the kill',
        );
        const rerun = await f.sync();
        assert.equal(rerun.code, 0, `${rerun.stdout}\n${rerun.stderr}`);
        assert.deepEqual(titles(f), ['FAQ', 'Intro']);
        assert.deepEqual([...foldedState(f).entries.keys()].sort(), ['faq.md', 'intro.md'], 'the state pairs no path with a deleted document');
      });
    });
  }

  test('two deletes, killed before the publish: the rerun tells the state of both', async () => {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(FIRST)) await f.write(path, text);
      assert.equal((await f.sync()).code, 0);
      await f.remove('setup.md');
      await f.remove('news.md');
      const killed = await f.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
      assert.equal(killed.signal, 'SIGKILL', `${killed.stdout}\n${killed.stderr}`);
      assert.deepEqual(titles(f), ['FAQ', 'Intro'], 'both deletes were made before the kill');
      const rerun = await f.sync();
      assert.equal(rerun.code, 0, `${rerun.stdout}\n${rerun.stderr}`);
      assert.deepEqual(titles(f), ['FAQ', 'Intro']);
      assert.deepEqual([...foldedState(f).entries.keys()].sort(), ['faq.md', 'intro.md'], 'the state pairs no path with a deleted document');
    });
  });
});

/**
 * A sync fixture whose service is reached through a proxy that, while `inOrder` runs its step, puts a run's two
 * deletes in `order`. A delete reads the body it backs up before its intent, so the second document's read waits:
 * 'the first committed', until the first delete is answered and its record dropped from the ledger; 'the first
 * unanswered', until the first delete has reached the proxy, which holds it until the step is over (the run
 * killed as the second starts), then lets it reach the service: a delete made whose answer the run never heard.
 */
async function withDeletesInOrder(
  order: 'the first committed' | 'the first unanswered',
  body: (f: SyncFixture, inOrder: <T>(step: () => Promise<T>) => Promise<T>) => Promise<void>,
): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  type Gate = { readonly ledger: string; readonly pathOf: ReadonlyMap<string, string>; first?: string; heldDelete?: string; readonly deleteHeld: Signal; readonly landed: Signal; readonly over: Signal };
  let gate: Gate | undefined;
  const proxy = await gateProxy(em.seed.baseUrl, {
    before: async (request) => {
      if (!gate) return;
      const path = gate.pathOf.get(/^\/v1\.0\/doc\/suites\/documents\/([^/?]+)\/blocks/.exec(request.path)?.[1] ?? '');
      if (path !== undefined) {
        gate.first ??= path;
        if (path !== gate.first) await (order === 'the first committed' ? untilDropped(gate.ledger, gate.first) : gate.deleteHeld.done);
      } else if (order === 'the first unanswered' && request.method === 'DELETE' && gate.heldDelete === undefined) {
        gate.heldDelete = request.path;
        gate.deleteHeld.give();
        await gate.over.done;
      }
    },
    after: (request) => {
      if (gate && request.method === 'DELETE' && request.path === gate.heldDelete) gate.landed.give();
    },
  });
  const service = { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } };
  const fixture = await createSyncFixture({ shared: em, config: { service } });
  try {
    await body(fixture, async (step) => {
      const armed: Gate = { ledger: ledgerFile(fixture), pathOf: new Map(ledgerRows(fixture).map((row) => [row.docKey, row.path])), deleteHeld: signal(), landed: signal(), over: signal() };
      gate = armed;
      try {
        return await step();
      } finally {
        armed.over.give();
        // The held delete goes on to the service once the run is over: the step's caller sees it made.
        if (armed.heldDelete !== undefined) await armed.landed.done;
        gate = undefined;
      }
    });
  } finally {
    await fixture.close();
    await proxy.close();
    await em.close();
  }
}

type Signal = { readonly done: Promise<void>; readonly give: () => void };

function signal(): Signal {
  let give!: () => void;
  const done = new Promise<void>((resolve) => (give = resolve));
  return { done, give };
}

const ledgerFile = (f: SyncFixture): string => join(f.root, '.kbsync', 'ledger.sqlite');

/** Resolves once the ledger (read beside the run writing it: WAL) has no record of `path`. */
async function untilDropped(ledger: string, path: string): Promise<void> {
  const db = new Database(ledger, { readonly: true, fileMustExist: true });
  try {
    while (db.prepare('SELECT 1 FROM documents WHERE path = ?').get(path) !== undefined) await delay(5);
  } finally {
    db.close();
  }
}
