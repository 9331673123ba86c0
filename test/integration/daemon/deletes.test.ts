import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, waitUntil, withDaemon, type Daemon } from './daemon-process.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';

const page = (n: number): string => `# Page ${n}\n\nWhat page ${n} says.\n`;
/** Each page's document id, which its URL is made of: a page made again would have another. */
const urls = (f: SyncFixture): Map<string, string> => new Map(f.remoteDocs().map((doc) => [doc.title, doc.dentryUuid]));
const deletes = (f: SyncFixture): number => f.em.admin.calls().byEndpoint.deleteDocument.calls;
/** Lines a person reads (info and above). */
const said = (d: Daemon): string[] => d.logs.filter((line) => line.level >= 30).map((line) => line.msg);
/** Two full cycles after now: whatever the daemon would do about the folder as it is, it has done. */
async function twoSweeps(d: Daemon): Promise<void> {
  const from = d.logs.length;
  await waitUntil(() => d.logs.slice(from).filter(firstSweepDone).length >= 2, 'two sweeps');
}

async function withPages(f: SyncFixture, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) await f.write(`p${n}.md`, page(n));
  assert.equal((await f.sync()).code, 0);
}

/** Deletes wait a moment (1.2 s) so the tests see them go; a checkout's wait is the default hour. */
const QUICK = { config: { watch: { debounceMs: 100, fullSweepMinutes: 0.01, deleteDelayMinutes: 0.02 } } };

describe('kbsync watch: deletes that can wait, wait', () => {
  test('a file deleted here: said when seen, and its document goes once the file stayed gone', async () => {
    await withSyncFixture(async (f) => {
      await withPages(f, 3);
      await withDaemon(f, {}, async (d) => {
        await f.remove('p1.md');
        await waitUntil(() => deletes(f) === 1, 'the delete to be sent');
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['Page 2', 'Page 3']);
        await twoSweeps(d);
        assert.deepEqual(
          said(d)
            .filter((line) => line.startsWith('p1.md'))
            // A wait that ends on another day shows its date too (a run just before midnight).
            .map((line) => line.replace(/ at (?:\d{4}-\d\d-\d\d )?\d\d:\d\d /, ' at HH:MM ')),
          [
            'p1.md: deleted here; its document is deleted at HH:MM (after 0.02 min, watch.deleteDelayMinutes) unless the file is back by then: restore it to keep the document and its URL, or run `kbsync resolve --mine p1.md` to delete it now',
            'p1.md: deleted here, so its document was deleted in the knowledge base (its body is backed up)',
          ],
        );
      });
    }, QUICK);
  });

  test('a delete that waits is listed with when it goes by kbsync status and kbsync resolve, beside the daemon', async () => {
    await withSyncFixture(async (f) => {
      await withPages(f, 3);
      await withDaemon(f, {}, async (d) => {
        await f.remove('p2.md');
        const seen = await d.waitForLog((line) => line.code === 'DELETE_WAITING' && line.path === 'p2.md' && line.level >= 30, 'the waiting delete to be said');
        const until = String(seen['deleteAt']);
        let status: StatusReport | undefined;
        await waitUntil(async () => {
          status = JSON.parse((await f.cli(['status', '--json'])).stdout) as StatusReport;
          return status.files.some((file) => file.waitsUntil !== undefined);
        }, 'status to show the wait');
        const file = status?.files.find((entry) => entry.path === 'p2.md');
        assert.equal(file?.state, 'deleted-local');
        assert.equal(file?.waitsUntil, until);
        assert.match(file?.detail ?? '', /kbsync watch deletes its document at \d\d:\d\d, unless the file is back by then; `kbsync resolve --mine p2\.md` deletes it now/);
        const listed = JSON.parse((await f.cli(['resolve', '--json'])).stdout) as ResolveReport;
        assert.deepEqual(listed.held.map((held) => [held.path, held.code, held.until]), [['p2.md', 'DELETE_WAITING', until]]);
        assert.match((await f.cli(['resolve'])).stdout, /p2\.md {2}held \(DELETE_WAITING\): .* Now: kbsync watch deletes its document at \d\d:\d\d, unless the file is back by then\./);
        assert.equal(deletes(f), 0);
      });
    });
  });

  test('many files gone at once wait (a checkout-like burst) until kbsync resolve --mine releases them', async () => {
    await withSyncFixture(async (f) => {
      await withPages(f, 6);
      await withDaemon(f, {}, async (d) => {
        for (let n = 1; n <= 5; n += 1) await f.remove(`p${n}.md`);
        await d.waitForLog((line) => line.msg.startsWith('5 files are gone at once'), 'the burst to be said');
        await sleep(2500);
        await twoSweeps(d);
        assert.equal(deletes(f), 0, 'past the plain delay, they still wait');
        const listed = await f.cli(['resolve']);
        assert.match(listed.stdout, /p3\.md {2}held \(DELETE_WAITING\)/);
        const released = await f.cli(['resolve', '--mine']);
        assert.equal(released.code, 0, released.stderr);
        assert.match(released.stdout, /p1\.md: released \(--mine\): the running daemon \(pid \d+\) deletes its document/);
        await waitUntil(() => deletes(f) === 5, 'the daemon to send the released deletes (no guard: a person named them)');
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title), ['Page 6']);
      });
    }, QUICK);
  });

  test('deletes over the guard: the cycle is refused with what works beside the daemon, and kbsync resolve --mine sends them', async () => {
    await withSyncFixture(
      async (f) => {
        await withPages(f, 6);
        await withDaemon(f, {}, async (d) => {
          for (const n of [1, 2, 3]) await f.remove(`p${n}.md`);
          const refused = await d.waitForLog((line) => line.msg.includes('cycle refused, nothing was changed: This run would delete 3 of 6'), 'the guard to refuse');
          assert.match(refused.msg, /While kbsync watch runs: `kbsync resolve` lists the deletes that wait and `kbsync resolve --mine` sends them/);
          assert.equal(deletes(f), 0);
          assert.match((await f.cli(['resolve'])).stdout, /p1\.md {2}held \(DELETE_WAITING\)/);
          assert.equal((await f.cli(['resolve', '--mine'])).code, 0);
          await waitUntil(() => deletes(f) === 3, 'the released deletes to be sent');
        });
      },
      { config: { guards: { maxDeletes: 2 }, watch: { debounceMs: 100, fullSweepMinutes: 0.01, deleteDelayMinutes: 0.02 } } },
    );
  });

  test('in a git repository, a branch round trip (away and back within a minute) deletes no document, and every page keeps its URL', async (t) => {
    try {
      execFileSync('git', ['--version'], { stdio: 'ignore' });
    } catch {
      return t.skip('git is not installed');
    }
    await withSyncFixture(async (f) => {
      const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: f.dir, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      await writeFile(join(f.dir, '.gitignore'), 'notes/.kbsync/\n');
      for (let n = 1; n <= 10; n += 1) await f.write(`p${n}.md`, page(n));
      git('add', '.');
      git('commit', '-qm', 'ten pages');
      git('checkout', '-qb', 'lean');
      git('rm', '-q', 'notes/p2.md', 'notes/p4.md', 'notes/p6.md', 'notes/p8.md');
      git('commit', '-qm', 'four pages fewer');
      git('checkout', '-q', 'main');
      assert.equal((await f.sync()).code, 0);
      const before = urls(f);
      assert.equal(before.size, 10);
      f.em.admin.resetCalls();

      await withDaemon(f, {}, async (d) => {
        git('checkout', '-q', 'lean');
        await d.waitForLog((line) => line.msg.startsWith('git checkout: the branch is now lean (was main)'), 'the switch to be said');
        await sleep(2500); // past the plain delete delay: only the checkout keeps them
        await twoSweeps(d);
        assert.equal(deletes(f), 0, 'while on the branch, nothing is deleted');
        git('checkout', '-q', 'main');
        await d.waitForLog((line) => line.msg.startsWith('git checkout: the branch is now main (was lean)'), 'the switch back to be said');
        await twoSweeps(d);
        const lines = said(d);
        assert.equal(lines.filter((line) => line.startsWith('git checkout:')).length, 2, 'each switch is said once');
        assert.deepEqual(lines.filter((line) => /^p\d+\.md: /.test(line)).sort(), ['p2.md', 'p4.md', 'p6.md', 'p8.md'].map((path) => `${path}: back before its delete was sent; its document (and URL) stays`));
      });
      assert.equal(deletes(f), 0);
      assert.equal(f.em.admin.calls().byEndpoint.createDocument.calls, 0, 'no page was made again');
      assert.deepEqual(urls(f), before, 'every page keeps its URL');
    }, QUICK);
  });
});
