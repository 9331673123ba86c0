import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

test('the sync folder removed while the daemon is mid-cycle is never re-created, and the daemon says it is missing', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('a.md', '# A\n\nFirst.\n\nSecond.\n');
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        // Both sides edit: the next cycle merges, so it will back up and rewrite the file. Its read of the
        // document is slow, and the folder vanishes while it waits.
        const reads = f.em.admin.calls().byEndpoint.readBlocks.calls;
        f.em.admin.setFaults({ latency: 1500, only: ['readBlocks'] });
        f.em.admin.setClockOffset(120_000);
        f.em.admin.editDocument(f.remoteDoc('A').dentryUuid, '# A\n\nFirst, edited on the web.\n\nSecond.\n');
        await f.write('a.md', '# A\n\nFirst.\n\nSecond, edited here.\n');
        await waitUntil(() => f.em.admin.calls().byEndpoint.readBlocks.calls > reads, 'the sweep to read the edited document');
        await rm(f.root, { recursive: true, force: true });
        await d.waitForLog((line) => line.code === 'ROOT_MISSING' || line.code === 'STATE_DIR_MISSING' || /is gone|does not exist/.test(line.msg), 'the daemon to say the folder is missing', 15_000);
        f.em.admin.setFaults({});
        // More sweeps come and go (one every 1.2 s here): each could re-create the folder or say it again.
        const from = d.logs.length;
        await waitUntil(() => d.logs.slice(from).filter((line) => /^sweep cycle (done|failed|refused)/.test(line.msg)).length >= 2, 'two more sweeps');
        assert.equal(existsSync(f.root), false, 'the vanished folder was not re-created');
        assert.ok(d.logs.filter((line) => line.level >= 50 && /ROOT_MISSING/.test(String(line.code))).length <= 1, 'said once, not every cycle');
      } finally {
        await d.dispose();
      }
    },
    { config: { watch: { fullSweepMinutes: 0.02 } } },
  );
});
