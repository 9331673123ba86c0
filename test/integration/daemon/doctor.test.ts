import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { startDaemon } from './daemon-process.js';

test('kbsync doctor beside a running daemon: a ✓ line with its pid and what it is doing, every other check made, exit 0', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('a.md', '# A\n\nSynced.\n');
      const d = startDaemon(f);
      try {
        await d.waitForLog((line) => line.msg.startsWith('in step with'), 'the first cycle');
        const doctor = await f.cli(['doctor']);
        assert.equal(doctor.code, 0, doctor.stdout);
        assert.match(doctor.stdout, new RegExp(`^✓ kbsync watch runs for this folder \\(pid ${d.pid}, since [^)]+\\): idle; its last sweep cycle \\d+ s ago went through; next look at the knowledge base in \\d+ (s|min)$`, 'm'));
        for (const check of ['ledger', 'token', 'service', 'workspace', 'scope Storage\\.File\\.Write', 'a two-way sync now']) assert.match(doctor.stdout, new RegExp(`^✓ ${check}`, 'm'), `${check} is checked too`);
        assert.doesNotMatch(doctor.stdout, /✗|interrupted operation/);
        assert.match(doctor.stdout, /All checks passed\./);
      } finally {
        await d.dispose();
      }
    },
    { config: { watch: { fullSweepMinutes: 5 } } },
  );
});
