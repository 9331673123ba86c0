import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

const budget = (calls: number): Record<string, string> => ({ KBSYNC_SERVICE_CALLS_PER_MONTH: String(calls) });

test("the month's call budget: counted by every run, said at half once, and once spent a run is refused before its first call until --over-budget", async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nFirst.\n');
    await f.write('b.md', '# B\n\nSecond.\n');
    const first = await f.sync();
    assert.equal(first.code, 0, first.stderr);
    const spent = first.report?.calls ?? 0;
    assert.ok(spent > 0);
    assert.deepEqual(first.report?.notices.filter((n) => n.code.startsWith('BUDGET')), [], 'no budget stated: nothing said');
    // Counted all the same: with a budget of twice that, the next run's calls take the month past half.
    const second = await f.sync([], budget(2 * spent));
    assert.equal(second.code, 0, second.stderr);
    const used = spent + (second.report?.calls ?? 0);
    const said = second.report?.notices.filter((n) => n.code.startsWith('BUDGET')) ?? [];
    assert.deepEqual(said.map((n) => n.code), ['BUDGET_LOW']);
    assert.match(said[0]?.message ?? '', new RegExp(`^50% of the month's call budget: ${used} of the ${2 * spent} calls`));
    const again = await f.sync([], budget(2 * spent));
    assert.deepEqual(again.report?.notices.filter((n) => n.code.startsWith('BUDGET')), [], 'said once a month');
    // Spent: refused before any call, nothing written; the file's edit waits in the file.
    await f.write('a.md', '# A\n\nFirst, edited.\n');
    f.em.admin.resetCalls();
    const refused = await f.sync([], budget(used));
    assert.equal(refused.code, 3, refused.stdout);
    assert.match(refused.stderr + refused.stdout, /BUDGET_SPENT/);
    assert.match(refused.stderr + refused.stdout, /This month's call budget is spent: \d+ calls from this folder since the 1st, against service\.callsPerMonth = \d+\. Nothing was sent and no file changed/);
    assert.equal(f.em.admin.calls().total, 0, 'not one call');
    assert.doesNotMatch(f.remoteDoc('A').markdown ?? '', /edited/);
    // Told to go over it: the run goes, and says the budget is spent.
    const over = await f.sync(['--over-budget'], budget(used));
    assert.equal(over.code, 0, over.stderr);
    assert.match(f.remoteDoc('A').markdown ?? '', /First, edited\./);
    assert.deepEqual(over.report?.notices.filter((n) => n.code.startsWith('BUDGET')).map((n) => n.code), ['BUDGET_SPENT']);
  });
});
