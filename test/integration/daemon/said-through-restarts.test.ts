import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { colleagueFileDeleted, daemonLife, type Daemon, type LogLine } from './daemon-process.js';

/**
 * Issue 44: two-daemon soaks said every file's standing broken links again after each restart, hundreds of lines a
 * soak: what the daemon said of a file lived in its memory only. It is kept in the ledger, through a crash too.
 */

const page = (words: string, links: string): string => `# Guide\n\n${words}\n\n${links}\n`;
const GONE = 'See [the old page](gone.md).';
const LOST = 'And [the setup](lost.md).';

const FIXED = 'See [the old page](guide.md).';

const brokenLinks = (d: Daemon): LogLine[] => d.logs.filter((line) => line.code === 'LINK_BROKEN');

test('kbsync watch says a broken link once: killed, restarted after an edit that leaves it broken, it does not say it again; a new one it says', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('guide.md', page('First words.', GONE));
      await daemonLife(f, { what: 'the first cycle', stop: 'SIGKILL' }, async (first) => {
        const said = brokenLinks(first).map((line) => line.msg);
        assert.equal(said.length, 1, said.join('\n'));
        assert.match(said[0] ?? '', /^guide\.md:5:\d+: broken link \[the old page\]\(gone\.md\)/);
      });

      // While no daemon runs, an edit that leaves the link broken.
      await f.write('guide.md', page('Other words.', GONE));
      await daemonLife(f, { what: 'the first cycle after the restart' }, async (second) => {
        assert.ok(second.logs.some((line) => line.path === 'guide.md' && line.result === 'pushed'), 'the edit was sent: its links were checked again');
        assert.deepEqual(brokenLinks(second), [], 'the link that stayed broken is not said again');
        assert.match(f.remoteDoc('Guide').markdown ?? '', /Other words\./);

        await f.write('guide.md', page('Other words.', `${GONE} ${LOST}`));
        const lost = await second.waitForLog((line) => line.code === 'LINK_BROKEN', 'the new broken link');
        assert.match(lost.msg, /lost\.md/);
        assert.deepEqual(brokenLinks(second).map((line) => line.msg), [lost.msg], 'the new one only');
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});

test('a link kbsync sync found fixed while no daemon ran, broken again, is news to the next daemon; one it reported still broken is not', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('guide.md', page('First words.', `${GONE} ${LOST}`));
      await daemonLife(f, { what: 'the first cycle', stop: 'SIGTERM' }, async (first) => {
        assert.equal(brokenLinks(first).length, 2, brokenLinks(first).map((line) => line.msg).join('\n'));
      });

      await f.write('guide.md', page('First words.', `${FIXED} ${LOST}`));
      const run = await f.sync(['--json']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.report?.links.map((link) => link.target), ['lost.md'], 'the one-shot run reports what it sent broken');

      await f.write('guide.md', page('Other words.', `${GONE} ${LOST}`));
      await daemonLife(f, { what: 'the first cycle after the restart' }, async (second) => {
        const said = brokenLinks(second).map((line) => line.msg);
        assert.equal(said.length, 1, said.join('\n'));
        assert.match(said[0] ?? '', /\(gone\.md\)/, 'fixed, then broken again: news');
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});

test('a file refused for what it holds is said once: a restart counts it in the start line, and tells nothing more of it', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('fine.md', '# Fine\n\nText.\n');
      await f.write('bad.md', '---\ntitle: [unclosed\n---\n# Bad\n\nText.\n');
      const saidOfBad = (d: Daemon): string[] => d.logs.filter((line) => line.path === 'bad.md' && line.level >= 30).map((line) => line.msg);
      await daemonLife(f, { what: 'the first cycle', stop: 'SIGTERM' }, async (first) => {
        assert.equal(saidOfBad(first).length, 1, saidOfBad(first).join('\n'));
      });
      await daemonLife(f, { what: 'the first cycle after the restart' }, async (second, state) => {
        assert.deepEqual(saidOfBad(second), [], 'not told again file by file');
        assert.match(state.msg, /waiting for you: 1 not synced/);
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});

test('a hold said before a restart is not said again file by file: the start line counts it', async () => {
  await withSyncFixture(
    async (f) => {
      await colleagueFileDeleted(f);
      const saidOfIt = (d: Daemon): string[] => d.logs.filter((line) => line.level >= 30 && line.msg.startsWith('Colleague.md: ')).map((line) => line.msg);
      const first = await daemonLife(f, { what: 'the hold to be said', at: (line) => line.msg.startsWith('Colleague.md: held: '), stop: 'SIGTERM' });
      assert.equal(saidOfIt(first).length, 1, saidOfIt(first).join('\n'));
      await daemonLife(f, { what: 'the first cycle after the restart' }, async (second, state) => {
        assert.deepEqual(saidOfIt(second), []);
        assert.match(state.msg, /waiting for you: 1 held/);
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});

test('a hold nothing records (JUST_CREATED) is not said again after a SIGKILL while it stands; gone while no daemon ran, and back, it is news', async () => {
  await withSyncFixture(
    async (f) => {
      // The service's clock stands still: the document made "a moment ago" stays that for the whole test.
      f.em.admin.freezeClock(Date.UTC(2026, 10, 2, 9, 0, 10));
      await f.write('other.md', '# Other\n\nOther.\n');
      assert.equal((await f.sync()).code, 0);
      const made = f.em.admin.createDocument({ name: 'Fresh', markdown: '' });
      await f.write('Fresh.md', '# Fresh\n\nMine.\n');
      const heldLines = (d: Daemon): string[] => d.logs.filter((line) => line.level >= 30 && line.msg.startsWith('Fresh.md: held: ')).map((line) => line.msg);

      await daemonLife(f, { what: 'the first cycle', stop: 'SIGKILL' }, async (first) => {
        assert.equal(heldLines(first).length, 1, heldLines(first).join('\n'));
        assert.match(heldLines(first)[0] ?? '', /a document of its title was made/);
      });

      await daemonLife(f, { what: 'the first cycle after the restart', stop: 'SIGTERM' }, async (second, state) => {
        assert.ok(second.logs.some((line) => line.path === 'Fresh.md' && line.code === 'JUST_CREATED'), 'still held');
        assert.deepEqual(heldLines(second), [], 'said before the SIGKILL: not again');
        assert.match(state.msg, /waiting for you: 1 held/);
      });

      // While no daemon runs the file and the document go: the hold ended. The next daemon's first sweep does not meet
      // it; then a colleague makes the page again, and the file is written again: the same hold, and news.
      await f.remove('Fresh.md');
      f.em.admin.deleteNode(made.dentryUuid);
      await daemonLife(f, { what: 'the first cycle without the file' }, async (third) => {
        f.em.admin.createDocument({ name: 'Fresh', markdown: '' });
        await f.write('Fresh.md', '# Fresh\n\nMine.\n');
        const back = await third.waitForLog((line) => line.level >= 30 && line.msg.startsWith('Fresh.md: '), 'what is said of the file written again');
        assert.match(back.msg, /^Fresh\.md: held: .*a document of its title was made/);
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});
