import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

/** The notify command of the config tells the person when the daemon leaves work for them; a broken one never stops the sync. */
test('the daemon runs notify.command once for a new conflict (event, path and message in its environment); resolve works while it runs', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('c.md', '# C\n\nShared paragraph.\n');
      assert.equal((await f.sync()).code, 0);
      const log = join(f.root, '..', 'notified.log');
      const d = startDaemon(f, { NOTIFY_LOG: log });
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        f.em.admin.setClockOffset(2 * 60_000);
        f.em.admin.editDocument(f.remoteDoc('C').dentryUuid, '# C\n\nShared paragraph, their words.\n');
        await f.write('c.md', '# C\n\nShared paragraph, my words.\n');
        await waitUntil(async () => (await readFile(log, 'utf8').catch(() => '')).includes('conflict'), 'the notify command to run', 30_000);
        const lines = (await readFile(log, 'utf8')).trim().split('\n');
        assert.equal(lines.length, 1, `one notification: ${lines.join(' | ')}`);
        const [event, path, message] = (lines[0] ?? '').split('|');
        assert.equal(event, 'conflict');
        assert.equal(path, 'c.md');
        assert.match(message ?? '', /both sides changed line 3/);
        assert.ok(d.logs.some((line) => line.level === 40 && line.msg.startsWith('c.md: conflict: ')), 'and a warning in the log');
        // Settled while the daemon runs (it holds the ledger): resolve writes the file, and the daemon publishes it.
        const resolved = await f.cli(['resolve', '--mine', 'c.md']);
        assert.equal(resolved.code, 0, resolved.stderr);
        await waitUntil(() => /my words/.test(f.remoteDoc('C').markdown ?? ''), 'the daemon to publish the settled file', 30_000);
      } finally {
        await d.dispose();
      }
    },
    { config: { notify: { command: 'printf "%s|%s|%s\\n" "$KBSYNC_EVENT" "$KBSYNC_PATH" "$KBSYNC_MESSAGE" >> "$NOTIFY_LOG"' }, watch: { fullSweepMinutes: 0.02 } } },
  );
});

test('a failing notify command is said once at warn and the daemon keeps syncing', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('a.md', '# A\n\nOne.\n');
      await f.write('b.md', '# B\n\nOne.\n');
      assert.equal((await f.sync()).code, 0);
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        // Two held writes (emptied files), two notifications, both failing.
        await f.write('a.md', '');
        await f.write('b.md', '');
        await waitUntil(() => d.logs.filter((line) => line.code === 'NOTIFY_FAILED').length > 0, 'the failure to be said', 30_000);
        await f.write('a.md', '# A\n\nTwo.\n');
        await waitUntil(() => /Two\./.test(f.remoteDoc('A').markdown ?? ''), 'the next edit to sync anyway', 30_000);
        assert.equal(d.logs.filter((line) => line.code === 'NOTIFY_FAILED').length, 1, 'said once');
      } finally {
        await d.dispose();
      }
    },
    { config: { notify: { command: 'exit 3' } } },
  );
});
