import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { ledgerRows } from '../../helpers/reliability.js';
import { firstSweepDone, startDaemon, waitUntil, type Daemon } from './daemon-process.js';

const cyclesDone = (d: Daemon) => d.logs.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('local cycle done')).length;

/**
 * The daemon keeps the ledger's summaries between cycles (DocumentsRepo.keepSummaries). A cycle that
 * planned from a stale row would push to the wrong document, create a second one, or miss a delete:
 * each step below depends on what the step before wrote.
 */
describe('kbsync watch: the kept ledger rows follow every write', () => {
  test('edit, rename, edit of the renamed file, delete: each reaches the right document, and the ledger on disk agrees', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', '# A\n\nFirst.\n');
        await f.write('b.md', '# B\n\nOther.\n');
        const d = startDaemon(f);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          const a = f.remoteDoc('A');
          const settle = async (what: string, check: () => boolean) => {
            const before = cyclesDone(d);
            await waitUntil(() => check() && cyclesDone(d) > before, what);
          };

          await f.write('a.md', '# A\n\nFirst, edited.\n');
          await settle('the edit to be pushed', () => /First, edited\./.test(f.remoteDoc('A').markdown ?? ''));

          await rename(join(f.root, 'a.md'), join(f.root, 'renamed.md'));
          await settle('the rename to be recorded', () => ledgerOnDiskHas(f, 'renamed.md'));

          await f.write('renamed.md', '# A\n\nFirst, edited again after the rename.\n');
          await settle('the renamed file to be pushed', () => /edited again after the rename/.test(f.remoteDoc('A').markdown ?? ''));
          assert.equal(f.remoteDoc('A').dentryUuid, a.dentryUuid, 'the same document, not a new one');

          await f.remove('b.md');
          await settle('the deletion to be sent', () => f.remoteDocs().every((doc) => doc.title !== 'B'));
        } finally {
          await d.dispose();
        }
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title), ['A']);
        assert.deepEqual(ledgerRows(f).map((row) => [row.path, row.treeNodeId]), [['renamed.md', f.remoteDoc('A').dentryUuid]]);
      },
      // Deletes go at once here (the daemon's wait is tested in deletes.test.ts).
      { config: { watch: { pollBudgetPerHour: 0, deleteDelayMinutes: 0 } } },
    );
  });
});

/** Whether the ledger file (read without the lock, beside the running daemon) holds `path`. */
function ledgerOnDiskHas(f: Parameters<typeof ledgerRows>[0], path: string): boolean {
  return ledgerRows(f).some((row) => row.path === path);
}
