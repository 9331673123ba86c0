import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { observeAndPlan } from '../../../src/sync/observe/observe.js';
import { pushInProcess, withInProcess } from '../../helpers/in-process-sync.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

const notCalled = (what: string) => () => {
  throw new Error(`${what} was asked for by a cycle that lists nothing`);
};

/**
 * The daemon keeps every summary in memory (DocumentsRepo.keepSummaries) and its local cycles list nothing
 * when every file is recorded: they plan only the files whose rows they must look at (decide/settled.ts), as a
 * push does, not every file of the folder on every save.
 */
describe("the daemon's local cycle: the saved files are planned, the settled ones left out", () => {
  test('an edit and a deletion among unchanged files: only they are planned, from the kept rows', async () => {
    await withSyncFixture(async (f) => {
      for (const name of ['a', 'b', 'c', 'd']) await f.write(`${name}.md`, `# ${name}\n\nText of ${name}.\n`);
      assert.equal((await pushInProcess(f)).counts['pushed'], 4);
      await withInProcess(f, 'two-way', async ({ client, ledger, options }) => {
        ledger.documents.keepSummaries();
        await f.write('b.md', '# b\n\nText of b, edited.\n');
        await f.remove('d.md');
        const observed = await observeAndPlan(
          { client, ledger, rootId: notCalled('the root'), store: notCalled('the shared state') },
          { ...options, listRemote: 'if-needed', settledTree: false },
        );
        assert.deepEqual([...observed.settled].sort(), ['a.md', 'c.md']);
        assert.deepEqual([...observed.summaries.keys()].sort(), ['b.md', 'd.md']);
        assert.deepEqual(observed.plan.actions.map((action) => `${action.kind} ${'record' in action ? action.record.path : ''}`).sort(), ['delete-remote d.md', 'push b.md']);
      });
    });
  });
});
