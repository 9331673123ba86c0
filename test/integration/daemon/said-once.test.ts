import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstBodyLandedLate, withArmedPair } from '../../helpers/workstation-pair.js';
import { withInProcessDaemon, type InProcessDaemon } from './in-process-daemon.js';

/**
 * Issue 44: the daemon says each thing once. The holds and waits nothing records (a file with no ledger row yet, a
 * wait each run decides afresh) and an outage met by a sweep were said again at every cycle while they stood, with
 * no news: each is said once, and then what ended it.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);

/** What a person reads of `path` (info and above), from line `from` on. */
const saidOf = (d: InProcessDaemon, path: string, from = 0): string[] => d.said(from).filter((line) => line.startsWith(`${path}: `));

/** Sweeps and local cycles, none bringing news: four sweeps ten minutes apart (of the daemon's clock), two saves of nothing. */
async function quietCycles(d: InProcessDaemon): Promise<void> {
  for (let n = 0; n < 4; n += 1) await d.wait(10);
  await d.changed();
  await d.changed();
}

test('a file whose title a document was just made with (JUST_CREATED) is said held once while that lasts, and sent once after', async () => {
  await withSyncFixture(async (f) => {
    f.em.admin.freezeClock(EPOCH);
    await f.write('other.md', '# Other\n\nOther.\n');
    assert.equal((await f.sync()).code, 0);
    await withInProcessDaemon(f, async (d) => {
      f.em.admin.createDocument({ name: 'Fresh', markdown: '' });
      await f.write('Fresh.md', '# Fresh\n\nMine.\n');
      await d.changed();
      await quietCycles(d);
      const held = saidOf(d, 'Fresh.md');
      assert.equal(held.length, 1, held.join('\n'));
      assert.match(held[0] ?? '', /^Fresh\.md: held: this folder has no record of it, and a document of its title was made/);
      const decided = d.logs.filter((line) => line.code === 'JUST_CREATED').length;
      assert.ok(decided > 4, `decided at every cycle all the same, at debug level after the first (${decided})`);
      const from = d.logs.length;
      f.em.admin.setClockOffset(2 * 60_000);
      await quietCycles(d);
      assert.deepEqual(saidOf(d, 'Fresh.md', from).map((line) => line.replace(/ \(.*/s, '')), ['Fresh.md: sent to the knowledge base']);
    });
  });
});

/**
 * A page with code synced, then, with the daemon running, a colleague's edit inside its code (reads show it as
 * `unknown`) in a later minute and `change` made to the file: `fn` then runs the daemon on, the clock two minutes past
 * that edit at 8 minutes (`pastTheWindow`).
 */
async function codeEditedUnderDaemon(change: (root: string) => Promise<void>, fn: (d: InProcessDaemon, pastTheWindow: () => void, remote: () => string) => Promise<void>): Promise<void> {
  await withSyncFixture(async (f) => {
    f.em.admin.freezeClock(EPOCH);
    await f.write('guides/run.md', RUN);
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(2 * 60_000);
    assert.equal((await f.sync()).code, 0);
    await withInProcessDaemon(f, async (d) => {
      f.em.admin.setClockOffset(4 * 60_000);
      const doc = f.remoteDoc('Run');
      f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart', 'restart --all'));
      await change(f.root);
      await d.changed();
      await fn(d, () => f.em.admin.setClockOffset(8 * 60_000), () => f.remoteDoc('Run').markdown ?? '');
    });
  });
}

const RUN = '# Run\n\nRead this.\n\n```sh\nrestart\n```\n\nThen check.\n';

test('a move whose document changed a moment ago where reads cannot show (MOVE_JUST_EDITED) is said held once while that lasts', async () => {
  const moved = async (root: string): Promise<void> => {
    await mkdir(join(root, 'ops'));
    await rename(join(root, 'guides/run.md'), join(root, 'ops/run.md'));
  };
  await codeEditedUnderDaemon(moved, async (d, pastTheWindow, remote) => {
    await quietCycles(d);
    const held = saidOf(d, 'ops/run.md');
    assert.equal(held.length, 1, held.join('\n'));
    assert.match(held[0] ?? '', /^ops\/run\.md: held: moved locally, but its document changed in the last minute or two/);
    // Past those minutes the edit is one made in the web editor (MOVE_LOSSY): news, said once.
    const from = d.logs.length;
    pastTheWindow();
    await quietCycles(d);
    const after = saidOf(d, 'ops/run.md', from);
    assert.equal(after.length, 1, after.join('\n'));
    assert.match(after[0] ?? '', /^ops\/run\.md: held: moved locally, but its document holds edits made in the web editor/);
    assert.match(remote(), /restart --all/, 'the edit stands');
  });
});

// Convergence soak 762: a file's edit waits with such a time (JUST_EDITED), said once while it lasts; past it, the
// colleague's edit is said (HIDDEN_EDIT), once, and kept.
test('an edit of a file whose document changed a moment ago where reads cannot show (JUST_EDITED) is said held once while that lasts', async () => {
  const edited = async (root: string): Promise<void> => writeFile(join(root, 'guides/run.md'), RUN.replace('Read this.', 'Read this first.'));
  await codeEditedUnderDaemon(edited, async (d, pastTheWindow, remote) => {
    await quietCycles(d);
    const held = saidOf(d, 'guides/run.md');
    assert.equal(held.length, 1, held.join('\n'));
    assert.match(held[0] ?? '', /^guides\/run\.md: held: edited locally, but its document changed in the last minute or two/);
    assert.doesNotMatch(remote(), /Read this first/, 'nothing sent meanwhile');
    const from = d.logs.length;
    pastTheWindow();
    await quietCycles(d);
    const after = saidOf(d, 'guides/run.md', from);
    assert.equal(after.length, 1, after.join('\n'));
    assert.match(after[0] ?? '', /^guides\/run\.md: held: someone edited this document in a part the service does not show/);
    assert.match(remote(), /restart --all/, 'the edit stands');
  });
});

test("a new document whose writer's record is on its way is said once, as the wait it is (not \"pulled\"), and its pull once", async () => {
  // B makes a page; its body write lands minutes after the create announced it, and B is killed before its record.
  await withArmedPair(false, (request) => request.path.includes('/overwriteContent'), async (pair) => {
    const { a, tick } = pair;
    await firstBodyLandedLate(pair);
    await withInProcessDaemon(a, async (d) => {
      await quietCycles(d);
      assert.deepEqual(saidOf(d, 'guide.md'), [
        "guide.md: new in the knowledge base, its first version written a moment ago by another kbsync machine: the next run takes it in, once that machine's record of it has come",
      ]);
      assert.equal(await a.read('guide.md').catch(() => undefined), undefined, 'not taken in yet');
      const from = d.logs.length;
      tick();
      tick();
      await quietCycles(d);
      assert.deepEqual(saidOf(d, 'guide.md', from), ['guide.md: pulled: new in the knowledge base (from the knowledge base, as it was last synced)']);
    });
  });
});

// The service failing every listing (a 5xx: retried a few seconds; a throttle is waited out for minutes, and the rule is the outage's, whatever its code).
test('a sweep that fails for the same outage (the service failing every listing) is said once, through local cycles that ask the service nothing', async () => {
  await withSyncFixture(async (f) => {
    await f.write('t.md', '# T\n\nT.\n');
    assert.equal((await f.sync()).code, 0);
    await withInProcessDaemon(f, async (d) => {
      f.em.admin.setFaults({ error5xx: 1, only: ['listNodes'] });
      const from = d.logs.length;
      await quietCycles(d);
      const failed = d.logs.slice(from).filter((line) => String(line.msg).startsWith('sweep cycle failed'));
      assert.ok(failed.length >= 2, `the sweeps failed again: ${failed.length}`);
      assert.deepEqual(
        d.said(from).map((line) => line.replace(/ \(.*/s, '')),
        ['the service failed a request', 'sweep cycle failed: The service failed on listNodes'],
      );
      f.em.admin.setFaults({});
    });
  });
});
