import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { daemonLife, type Daemon, type LogLine } from './daemon-process.js';

/**
 * Issue 44, soak 745: a page's broken links were said up to six times on one machine as it moved about. A move that
 * makes a new document started the new row with nothing said; a move held (its document changed where reads cannot
 * show) kept what it said by its new path, which has no row, in memory only, lost at each restart. The same link,
 * still broken, in the same file moved is no news: said once. A link that breaks anew is.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);
const page = (links: string): string => `# Run\n\nRead this.\n\n\`\`\`sh\nrestart\n\`\`\`\n\n${links}\n`;
const GONE = 'See [the old page](gone.md).';
const LOST = 'And [the setup](lost.md).';

const brokenLinks = (d: Daemon, from = 0): string[] => d.logs.slice(from).filter((line) => line.code === 'LINK_BROKEN').map((line) => line.msg);
/** The cycle of line `from` is over (a local cycle, or a sweep that met the change first): what it said of links is said. */
const cycleDone = (d: Daemon, from: number, what: string): Promise<LogLine> => d.waitForLog((line) => d.logs.indexOf(line) > from && /^(local|sweep) cycle done/.test(line.msg), what);

test('a broken link is said once through its file’s moves: a move that makes a new document, a move held, a restart while it is held; a new one is said', async () => {
  await withSyncFixture(
    async (f) => {
      f.em.admin.freezeClock(EPOCH);
      await f.write('guides/run.md', page(GONE));
      const run = await f.sync(['--json']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.report?.links.map((link) => link.target), ['gone.md'], 'said by the run that sent it');
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);

      await daemonLife(f, { what: 'the first cycle', stop: 'SIGKILL' }, async (first) => {
        await mkdir(join(f.root, 'ops'));
        await rename(join(f.root, 'guides/run.md'), join(f.root, 'ops/run.md'));
        const moved = await first.waitForLog((line) => line.path === 'ops/run.md' && line.level >= 30, 'the move');
        assert.match(moved.msg, /^ops\/run\.md: moved from guides\/run\.md: a new document in its place/);
        await cycleDone(first, first.logs.indexOf(moved), 'the cycle of the move');

        // A colleague edits the code (reads cannot show it), and the file moves again: the move waits.
        f.em.admin.setClockOffset(4 * 60_000);
        const doc = f.remoteDoc('Run');
        f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart', 'restart --all'));
        await rename(join(f.root, 'ops/run.md'), join(f.root, 'run.md'));
        const held = await first.waitForLog((line) => line.path === 'run.md' && line.level >= 30, 'the held move');
        assert.match(held.msg, /^run\.md: held: moved locally, but its document changed in the last minute or two/);
        await cycleDone(first, first.logs.indexOf(held), 'the cycle of the held move');
        assert.deepEqual(brokenLinks(first), [], 'the link the run said, still broken, in the same file moved: no news');
      });

      await daemonLife(f, { what: 'the first cycle after the restart' }, async (second) => {
        assert.deepEqual(brokenLinks(second), [], 'not said again after the restart');
        assert.deepEqual(second.logs.filter((line) => line.path === 'run.md' && line.level >= 30).map((line) => line.msg), [], 'nor the wait');

        await f.write('run.md', page(`${GONE} ${LOST}`));
        const lost = await second.waitForLog((line) => line.code === 'LINK_BROKEN', 'the new broken link');
        assert.match(lost.msg, /lost\.md/);
        await cycleDone(second, second.logs.indexOf(lost), 'the cycle of the edit');
        assert.deepEqual(brokenLinks(second), [lost.msg], 'the new one only');
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});
