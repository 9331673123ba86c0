import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A push interrupted at any step, then one more local edit, while nobody else writes: the next run must
 * see kbsync's own earlier push for what it is. Reading it as a colleague's edit makes a conflict copy
 * of the user's own words, or a "merged with edits from the knowledge base" line that never happened.
 * The files hold what the service reads back differently from what was sent (a lazy list continuation,
 * emphasis, a code block), where "what we sent" and "what came back" are easiest to confuse.
 */

const NOTES: Readonly<Record<string, string>> = {
  'lists.md': '# Lists\n\nIntro paragraph.\n\n- first item\ncontinued lazily\n- second item\n\nClosing paragraph.\n',
  'styled.md': '# Styled\n\nSome *emphasis* and `code` here.\n\n```js\nconst x = 1;\n```\n\nLast words\n',
  'plain.md': '# Plain\n\nAlpha.\n\nBeta.\n\nGamma.\n',
};

/** The first edit (the one whose push is interrupted) and the second (made after the interruption). */
const FIRST = (text: string, r: string): string => text.replace(/Intro paragraph\.|Some \*emphasis\*|Alpha\./, (m) => `${m} first-${r}`);
const SECOND = (text: string, r: string): string => `${text.replace(/first-\S+/, (m) => `${m} second-${r}`).trimEnd()}\n\nAdded after the stop ${r}.\n`;

async function editAll(f: SyncFixture, edit: (text: string, r: string) => string, r: string): Promise<void> {
  for (const name of Object.keys(NOTES)) await f.write(name, edit(await f.read(name), r));
}

async function conflictCopies(f: SyncFixture): Promise<string[]> {
  return (await readdir(f.root, { recursive: true })).filter((name) => name.includes('.conflict-'));
}

type Interruption = { readonly name: string; interrupt(f: SyncFixture): Promise<void> };


/** A push killed at a crash point (SIGKILL at that step: nothing after it ran). */
const killedAt = (point: string): Interruption => ({
  name: `killed at ${point}`,
  async interrupt(f) {
    const run = await f.sync([], { KBSYNC_CRASH_AT: point });
    assert.equal(run.signal, 'SIGKILL', `the run died at ${point}: ${run.stderr}`);
  },
});

/** Body writes the service has been asked for so far. */
const writes = (f: SyncFixture): number => {
  const { byEndpoint } = f.em.admin.calls();
  return byEndpoint.overwriteContent.calls + byEndpoint.appendText.calls;
};

/** Writes to the user's documents only: the shared state's own appends (after any push) are not bodies sent again. */
const bodyWrites = (f: SyncFixture): number =>
  f.remoteDocs().reduce((sum, doc) => {
    const calls = f.em.admin.callsOn(doc.dentryUuid);
    return sum + (calls.overwriteContent ?? 0) + (calls.appendText ?? 0);
  }, 0);

/** A push stopped by a signal once its first write reached the service (and, for a second stop, killed at once). */
const signalled = (signal: NodeJS.Signals, then?: 'kill'): Interruption => ({
  name: `${signal}${then ? ' then SIGKILL' : ''} during the writes`,
  // Killed at once, a write may land with no record of it: the same case as a crash after the write.
  async interrupt(f) {
    const before = writes(f);
    await runCli(['sync', '--json', '--config', f.configPath], {
      cwd: f.dir,
      env: f.env,
      onSpawn: (child) =>
        void (async () => {
          while (writes(f) <= before) await sleep(5);
          child.kill(signal);
          if (then) child.kill('SIGKILL');
        })(),
    });
  },
});

const INTERRUPTIONS: readonly Interruption[] = [
  killedAt('after-intent'),
  killedAt('after-overwrite'),
  killedAt('after-overwrite:2'),
  killedAt('before-ledger-commit'),
  signalled('SIGINT'),
  signalled('SIGINT', 'kill'),
  signalled('SIGTERM', 'kill'),
];

for (const interruption of INTERRUPTIONS) {
  test(`a push ${interruption.name}, then another local edit: no conflict copy and no merge, the edits arrive`, async () => {
    await withSyncFixture(
      async (f) => {
        for (const [name, text] of Object.entries(NOTES)) await f.write(name, text);
        assert.equal((await f.sync()).code, 0);

        await editAll(f, FIRST, 'r1');
        await interruption.interrupt(f);
        await editAll(f, SECOND, 'r2');

        const next = await f.sync();
        assert.equal(next.code, 0, next.stderr);
        const report = next.report;
        assert.ok(report);
        const told = report.results.filter((r) => r.ok && (r.result === 'merged' || r.result === 'conflict')).map((r) => `${r.path}: ${r.ok && r.result}`);
        assert.deepEqual(told, [], 'nobody else wrote: nothing to merge with');
        assert.deepEqual(report.conflicts, []);
        assert.deepEqual(await conflictCopies(f), []);
        for (const name of Object.keys(NOTES)) {
          const text = await f.read(name);
          assert.match(text, /first-r1 second-r2/, `${name} keeps both edits`);
          assert.match(text, /Added after the stop r2\./);
          const title = (/^# (.+)$/m.exec(text) as RegExpExecArray)[1] as string;
          assert.match(f.remoteDoc(title).markdown ?? '', /first-r1 second-r2[\s\S]*Added after the stop r2\./, `${name} reached the knowledge base`);
        }
        const again = await f.sync();
        assert.deepEqual(again.report?.results.filter((r) => !r.ok || r.result !== 'unchanged'), [], 'steady afterwards');
      },
      { emulator: { faults: 'latency=40,only=overwriteContent|appendText' } },
    );
  });
}

test('a push killed between its writes and their record, run again with no other edit: no merge is reported, nothing is written twice', async () => {
  await withSyncFixture(async (f) => {
    for (const [name, text] of Object.entries(NOTES)) await f.write(name, text);
    assert.equal((await f.sync()).code, 0);
    await editAll(f, FIRST, 'r1');
    await killedAt('before-ledger-commit').interrupt(f);
    // The run died at its first record; writes of other files in flight may or may not have landed.
    const notYet = Object.entries(NOTES)
      .filter(([, text]) => !(f.remoteDoc((/^# (.+)$/m.exec(text) as RegExpExecArray)[1] as string).markdown ?? '').includes('first-r1'))
      .map(([name]) => `${name}: pushed`);
    const writesBefore = bodyWrites(f);
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    // The documents that already say what the files say are said sent by this run, which records them (landed-write-said.test.ts).
    const told = next.report?.results.filter((r) => r.ok && r.result !== 'unchanged').map((r) => `${r.path}: ${r.ok && r.result}`);
    assert.deepEqual(told?.sort(), Object.keys(NOTES).map((name) => `${name}: pushed`).sort(), 'each file is said sent, once');
    assert.equal(bodyWrites(f) - writesBefore, notYet.length, 'no body is sent again');
    assert.deepEqual(await conflictCopies(f), []);
  });
});

// State chaos seed 15: the interrupted write landed in a later minute than the last agreement, so the document's
// listed time moved with its blocks as our own write left them: read as an edit inside code, held HIDDEN_EDIT for good.
test('a push killed after its overwrite, minutes after the last sync: its own write is no hidden edit, the next edit goes out', async () => {
  await withSyncFixture(async (f) => {
    for (const [name, text] of Object.entries(NOTES)) await f.write(name, text);
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(2 * 60_000);
    await editAll(f, FIRST, 'r1');
    await killedAt('after-overwrite').interrupt(f);
    f.em.admin.setClockOffset(4 * 60_000);
    await editAll(f, SECOND, 'r2');
    const next = await f.sync();
    assert.equal(next.code, 0, `${next.stderr} ${JSON.stringify(next.report?.results)}`);
    assert.deepEqual(next.report?.results.filter((r) => !r.ok || r.result === 'held'), [], 'nothing held');
    for (const text of Object.values(NOTES)) {
      const title = (/^# (.+)$/m.exec(text) as RegExpExecArray)[1] as string;
      assert.match(f.remoteDoc(title).markdown ?? '', /Added after the stop r2\./, `${title} reached the knowledge base`);
    }
  });
});

// State chaos seed 18: a new file's create was killed after its body landed, and the user then deleted the file.
// The document's change was our own push, yet it was restored as "edited in the knowledge base", from the
// service's plain reading, which held every later edit of it FLATTEN for good.
for (const point of ['after-overwrite', 'before-ledger-commit:2']) {
  test(`a new file's create killed ${point}, the file then deleted: its document is deleted, not restored`, async () => {
    await withSyncFixture(async (f) => {
      await f.write('plain.md', NOTES['plain.md'] as string);
      assert.equal((await f.sync()).code, 0);
      // Settled in a later minute: the killed run then re-checks nothing, and its commits are the new file's
      // alone (a re-check of plain.md racing its create made `before-ledger-commit:2` land before the body).
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);
      await f.write('styled.md', NOTES['styled.md'] as string);
      await killedAt(point).interrupt(f);
      assert.match(f.remoteDoc('Styled').markdown ?? '', /Last words/, 'the body landed before the kill');
      await f.remove('styled.md');
      const next = await f.sync();
      assert.equal(next.code, 0, `${next.stderr} ${JSON.stringify(next.report?.results)}`);
      assert.deepEqual(
        next.report?.results.filter((r) => r.path === 'styled.md').map((r) => r.ok && r.action),
        ['delete-remote'],
      );
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title), ['Plain']);
      assert.equal(await f.exists('styled.md'), false, 'the file stays deleted');
    });
  });
}
