import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { nodeUrl } from '../../../src/emulator/views.js';
import { ID_WINDOW } from '../../../src/sync/state/journal.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { idProblems } from '../../helpers/state-reader.js';
import { runCli } from '../../helpers/cli.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import type { SyncReport } from '../../../src/sync/views/report.js';

/**
 * The window of a push without a ledger (a CI job, a first `--push`): up to ID_WINDOW creates between their
 * request and the one append that keeps their ids (src/sync/state/journal.ts). What it saves (an append per
 * window, not per create), what a kill in it loses (at most the window's ids: never a duplicate, each said once
 * with its URL) and what a graceful stop loses (nothing).
 */

/** A user document's create as the client sends it (folders and kbsync's own state documents are not held). */
const isNoteCreate = (method: string, path: string, body: string): boolean =>
  method === 'POST' && /^\/v1\.0\/doc\/workspaces\/[^/]+\/docs(\?|$)/.test(path) && !body.includes('"FOLDER"') && !/"name":"kbsync-(state|sources)-/.test(body);

type Gated = {
  readonly f: SyncFixture;
  /** Groups of creates the gate let go before they filled (see withWindowGate). */
  readonly partialGroups: () => number;
  /** Resolves once the first group of creates is held at the gate: all of them sent, none made yet. */
  readonly firstGroupHeld: Promise<void>;
  /** Lets the first group through (it waits for this once full). */
  readonly releaseFirst: () => void;
};

/**
 * A sync fixture whose runs reach the emulator through a proxy that holds the notes' creates until a window's
 * worth (ID_WINDOW, or what is left of `notes`) is waiting, then lets them through together: every window's
 * creates are sent, and answered, at once, every run, not by timing. Should a group not fill (a run that sends
 * fewer creates at once), the proxy lets it go after ten seconds and counts it (`partialGroups`), so such a run
 * is told, not hung. The first group, once full, also waits for `releaseFirst`.
 */
async function withWindowGate(notes: number, body: (gated: Gated) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  let sent = 0;
  let partial = 0;
  let group: { readonly size: number; count: number; readonly go: Promise<void>; readonly open: () => void } | undefined;
  let firstHeld!: () => void;
  const firstGroupHeld = new Promise<void>((resolve) => (firstHeld = resolve));
  let releaseFirst!: () => void;
  const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
  const newGroup = (size: number) => {
    let open!: () => void;
    const go = new Promise<void>((resolve) => (open = resolve));
    const escape = setTimeout(() => {
      partial += 1;
      open();
    }, 10_000).unref();
    void go.then(() => clearTimeout(escape));
    return { size, count: 0, go, open };
  };
  const proxy = await gateProxy(em.seed.baseUrl, {
    before: async (request) => {
      if (!isNoteCreate(request.method, request.path, request.body) || sent >= notes) return;
      const mine = (group ??= newGroup(Math.min(ID_WINDOW, notes - sent)));
      sent += 1;
      mine.count += 1;
      if (mine.count === mine.size) {
        group = undefined;
        if (sent === mine.size) {
          firstHeld();
          await firstReleased;
        }
        mine.open();
      }
      await mine.go;
    },
  });
  // The client as wide as the window (its default is 8 requests at once), so a window's creates are all on their way together.
  const service = { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' }, concurrency: ID_WINDOW };
  const f = await createSyncFixture({ shared: em, config: { service } });
  try {
    await body({ f, partialGroups: () => partial, firstGroupHeld, releaseFirst });
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
}

/** A CI job's run: a fresh checkout, so no ledger. */
async function ciRun(f: SyncFixture, env: Record<string, string> = {}) {
  await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  return f.sync(['--push'], env);
}

async function writeNotes(f: SyncFixture, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await f.write(`note-${String(i).padStart(2, '0')}.md`, `# Note ${i}\n\nText of note ${i}.\n`);
}

/** Titles of the documents whose creation id the state lacks. */
const unrecorded = (f: SyncFixture): string[] => idProblems(f).map((problem) => /^"(.*?)"/.exec(problem)?.[1] ?? problem);

/** The words of a run's results and notices, to find what it said about a document. */
const said = (report: SyncReport | undefined): string => JSON.stringify([...(report?.results ?? []), ...(report?.notices ?? [])]);

describe('the creation ids of a push without a ledger, a window at a time', () => {
  test(`a first push of ${3 * ID_WINDOW} notes appends their ids in one append per ${ID_WINDOW} creates, not one per create`, async () => {
    const notes = 3 * ID_WINDOW;
    await withWindowGate(notes, async ({ f, partialGroups, releaseFirst }) => {
      releaseFirst();
      await writeNotes(f, notes);
      const pushed = await f.sync(['--push']);
      assert.equal(pushed.code, 0, `${pushed.stdout}\n${pushed.stderr}`);
      const calls = pushed.report?.callsByEndpoint ?? {};
      // The three windows' ids, one append each; the run's closing record makes the rest (its index and its
      // sources: the texts kept ahead of the writes went into the sources' first body). A create at a time made 50.
      assert.equal(calls['createDocument'], notes + 3, `the notes, the state folder, its index and its sources: ${JSON.stringify(calls)}`);
      assert.ok((calls['appendText'] ?? 0) <= notes / ID_WINDOW + 2, `appends: ${JSON.stringify(calls)}`);
      assert.equal(partialGroups(), 0, `the run sent ${ID_WINDOW} creates at once, every window`);
      assert.deepEqual(unrecorded(f), [], 'every id is in the state');
    });
  });

  test(`a push killed as the last of ${ID_WINDOW} creates answered: the next runs make no second document, fill the ${ID_WINDOW}, and say each once with its URL`, async () => {
    const notes = ID_WINDOW + 4;
    await withWindowGate(notes, async ({ f, releaseFirst }) => {
      releaseFirst();
      await writeNotes(f, notes);
      // The window's ids wait for its last create's answer: killed there, none is in the state.
      const killed = await ciRun(f, { KBSYNC_CRASH_AT: `before-id-append:${ID_WINDOW}` });
      assert.equal(killed.signal, 'SIGKILL', `${killed.stdout}\n${killed.stderr}`);
      const lost = f.remoteDocs();
      assert.equal(lost.length, ID_WINDOW, 'the window was made, nothing after it');
      assert.deepEqual(unrecorded(f).sort(), lost.map((doc) => doc.title).sort(), 'the kill lost the ids of the window, and only those');

      // Run at once, an empty document with neither id nor body in the state may be another writer's, its first
      // body on its way: held a minute or two (JUST_CREATED). Two minutes on, the next run fills it.
      const words: string[] = [];
      const held = await ciRun(f);
      words.push(said(held.report));
      assert.equal(held.code, 1, `${held.stdout}\n${held.stderr}`);
      assert.deepEqual(held.report?.results.filter((r) => !r.ok || r.result === 'held').map((r) => r.ok && r.reason), Array.from({ length: ID_WINDOW }, () => 'JUST_CREATED'));
      f.em.admin.setClockOffset(2 * 60_000);
      const filled = await ciRun(f);
      words.push(said(filled.report));
      assert.equal(filled.code, 0, `${filled.stdout}\n${filled.stderr}`);
      f.em.admin.setClockOffset(4 * 60_000);
      const steady = await ciRun(f);
      words.push(said(steady.report));
      assert.deepEqual(steady.report?.planned, []);
      assert.equal(f.remoteDocs().length, notes, 'one document per file: none made twice');
      for (let i = 0; i < notes; i += 1) assert.match(f.remoteDoc(`Note ${i}`).markdown ?? '', new RegExp(`Text of note ${i}\\.`));
      for (const doc of lost) {
        const url = nodeUrl(f.em.seed.baseUrl, doc.dentryUuid);
        assert.equal(words.filter((text) => text.includes(url)).length, 1, `"${doc.title}" is said once with its URL: ${words.join('\n')}`);
        assert.match(words.join('\n'), /cannot delete it/);
      }
      assert.deepEqual(unrecorded(f).sort(), lost.map((doc) => doc.title).sort(), 'the others ids are all in the state');

      // Two files of the window and two of the others deleted (not all: a folder emptied is never taken for
      // deletions): the two whose ids are known are deleted, the window's two are left and said with their URL.
      const windowOf = lost.map((doc) => Number(doc.title.replace('Note ', ''))).sort((x, y) => x - y);
      const known = [...Array(notes).keys()].filter((i) => !windowOf.includes(i));
      const removed = [...windowOf.slice(0, 2), ...known.slice(0, 2)];
      for (const i of removed) await f.remove(`note-${String(i).padStart(2, '0')}.md`);
      const before = f.remoteDocs();
      const gone = await ciRun(f);
      assert.equal(gone.code, 0, `${gone.stdout}\n${gone.stderr}`);
      const left = new Set(f.remoteDocs().map((doc) => doc.title));
      assert.deepEqual(
        before.filter((doc) => !left.has(doc.title)).map((doc) => doc.title).sort(),
        known.slice(0, 2).map((i) => `Note ${i}`).sort(),
        'the documents whose ids the state has are deleted, the window\'s left for a person',
      );
      for (const i of windowOf.slice(0, 2)) {
        const url = nodeUrl(f.em.seed.baseUrl, f.remoteDoc(`Note ${i}`).dentryUuid);
        assert.ok(said(gone.report).includes(url), `the deletion of note ${i}'s file says the URL to delete its document at: ${said(gone.report)}`);
      }
    });
  });

  test(`a push stopped (SIGTERM) with ${ID_WINDOW} creates on their way: every document it made has its id in the state, and the next run makes the rest once`, async () => {
    const notes = ID_WINDOW + 4;
    await withWindowGate(notes, async ({ f, firstGroupHeld, releaseFirst }) => {
      await writeNotes(f, notes);
      // Stopped while the window's creates are held: they are made once let through, whichever the run meets first.
      const stopped = await runCli(['sync', '--json', '--push', '--config', f.configPath], {
        cwd: f.dir,
        env: f.env,
        onSpawn: (child) =>
          void firstGroupHeld.then(() => {
            child.kill('SIGTERM');
            releaseFirst();
          }),
      });
      assert.equal(stopped.code, 143, `${stopped.stdout}\n${stopped.stderr}`);
      assert.equal(f.remoteDocs().length, ID_WINDOW, 'the window was made; no create started after the stop');
      assert.deepEqual(unrecorded(f), [], 'the stop appended every id the run was given');
      const next = await ciRun(f);
      assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
      assert.equal(f.remoteDocs().length, notes, 'one document per file');
      assert.deepEqual(unrecorded(f), []);
      assert.doesNotMatch(said(next.report), /cannot delete it/, 'no id was lost, so none is said lost');
    });
  });
});
