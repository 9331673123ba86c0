import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { startDaemon } from './daemon-process.js';

test("kbsync watch with the month's call budget spent: not one call, said once, and an edit saved meanwhile waits in its file", async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nFirst.\n');
    const first = await f.sync();
    assert.equal(first.code, 0, first.stderr);
    f.em.admin.resetCalls();
    // The month's count is the first run's calls: a budget of exactly that is spent.
    const d = startDaemon(f, { KBSYNC_SERVICE_CALLS_PER_MONTH: String(first.report?.calls ?? 0) });
    try {
      await d.waitForLog((line) => line['code'] === 'BUDGET_SPENT', 'the budget said spent');
      const waited = d.logs.length;
      await f.write('a.md', '# A\n\nFirst, edited.\n');
      await d.waitForLog((line) => d.logs.indexOf(line) >= waited && line.msg.endsWith("cycle waits for the month's call budget"), 'the edit to wait');
      assert.equal(f.em.admin.calls().total, 0, 'not one call, the first sweep included');
      assert.doesNotMatch(f.remoteDoc('A').markdown ?? '', /edited/);
      assert.equal(await f.read('a.md'), '# A\n\nFirst, edited.\n', 'the edit is in its file');
      assert.equal(d.logs.filter((line) => line['code'] === 'BUDGET_SPENT').length, 1, 'said once');
    } finally {
      await d.dispose();
    }
  });
});
