import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { colleagueFileDeleted, firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

const BUDGET = 720; // calls an hour: one listing every 5 s

test('an idle daemon beside a held delete spends only its polling budget (no read of the held document) and says the hold once', async () => {
  await withSyncFixture(
    async (f) => {
      await colleagueFileDeleted(f);
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        await d.waitForLog((line) => line.msg.startsWith('Colleague.md: held: '), 'the hold to be said');
        f.em.admin.resetCalls();
        const started = Date.now();
        // Three sweeps past the reset (one every 3 s here), rather than a fixed 16 s: the checks below are
        // per sweep, and each sweep is what would read the held document if anything did.
        await waitUntil(() => d.logs.filter((l) => l.msg.startsWith('sweep') && Number(l.time) >= started).length >= 3, 'three sweeps', 60_000);
        await waitUntil(() => !d.logs.some((l) => l.msg.startsWith('sweep') && Date.now() - Number(l.time) < 100), 'a quiet moment');
        const hours = (Date.now() - started) / 3_600_000;
        const calls = f.em.admin.calls();
        assert.equal(calls.byEndpoint.readBlocks.calls, 0, 'the held document is never read again');
        assert.ok(calls.byEndpoint.listNodes.calls >= 2, 'sweeps went on');
        // Only listings: each sweep lists the synced folder and the state folder (whose index tells whether
        // another machine published anything), give or take the sweep under way when the window closed.
        assert.equal(calls.total, calls.byEndpoint.listNodes.calls, 'nothing but listings');
        const sweeps = d.logs.filter((l) => l.msg.startsWith('sweep') && Number(l.time) >= started).length;
        assert.ok(calls.total <= 2 * (sweeps + 1), `${calls.total} listings for ${sweeps} sweeps in ${(hours * 3600).toFixed(0)} s`);
        const said = d.logs.filter((line) => line.level >= 30).map((line) => line.msg);
        assert.equal(said.filter((msg) => msg.startsWith('Colleague.md')).length, 1, 'the hold is said once');
        assert.deepEqual(said.filter((msg, i) => said.indexOf(msg) !== i), [], 'no line is repeated');
      } finally {
        await d.dispose();
      }
    },
    { config: { watch: { pollBudgetPerHour: BUDGET, fullSweepMinutes: 0.05 } } },
  );
});

test('a held file saved again and again while the daemon sweeps: its hold is said once', async () => {
  await withSyncFixture(
    async (f) => {
      const page = '# Runbook\n\nRead this.\n\n```sh\nrestart --all\n```\n\nThen check the dashboard.\n';
      await f.write('runbook.md', page);
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);
      // An edit here, then a colleague's inside the code: the overwrite is held (HIDDEN_EDIT) while the document stays
      // so, and the record keeps the minute agreed before the colleague's.
      await f.write('runbook.md', page.replace('the dashboard', 'the dashboard (0)'));
      f.em.admin.setClockOffset(4 * 60_000);
      const doc = f.remoteDoc('Runbook');
      f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
      f.em.admin.setClockOffset(7 * 60_000);
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        // Each save is taken by a local cycle, which lists nothing (the record's older minute), between sweeps, which list.
        for (let save = 1; save <= 3; save += 1) {
          await f.write('runbook.md', page.replace('the dashboard', `the dashboard (${save})`));
          const sweeps = d.logs.filter((l) => l.msg.startsWith('sweep cycle done')).length;
          await waitUntil(() => d.logs.filter((l) => l.msg.startsWith('sweep cycle done')).length >= sweeps + 2, 'two sweeps after the save', 60_000);
        }
        const held = d.logs.filter((line) => line.level >= 30 && line.msg.startsWith('runbook.md: held'));
        assert.equal(held.length, 1, held.map((line) => line.msg.slice(0, 60)).join('\n'));
        assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "held: the colleague's edit stands");
      } finally {
        await d.dispose();
      }
    },
    { config: { watch: { fullSweepMinutes: 0.05 } } },
  );
});
