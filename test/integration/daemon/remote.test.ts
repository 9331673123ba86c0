import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

describe('kbsync watch: remote changes', () => {
  test('a remote edit arrives in the file through polling, and the calls spent are kept in the ledger', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', '# A\n\nFirst paragraph.\n\nSecond paragraph.\n');
        const d = startDaemon(f);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          const doc = f.remoteDoc('A');
          f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Second paragraph.', 'Second paragraph, edited on the web.'));
          await waitUntil(async () => (await f.read('a.md')).includes('edited on the web'), 'the remote edit to reach the file');
          assert.equal(await f.read('a.md'), '# A\n\nFirst paragraph.\n\nSecond paragraph, edited on the web.\n');
          await d.waitForLog((line) => line.msg.startsWith('a.md: pulled from the knowledge base (FORMATTING_UNSEEN: line 5 has words'), 'the pull to be logged');
          // Polling decisions are logged at debug level.
          assert.ok(d.logs.some((line) => line.level === 20 && typeof line.sweepEveryMs === 'number'));
          d.kill('SIGTERM');
          assert.equal(await d.exited(), 0);
          const { openLedger } = await import('../../../src/ledger/index.js');
          const ledger = openLedger(`${f.root}/.kbsync/ledger.sqlite`, { readonly: true, lock: false });
          try {
            const total = ledger.meta.get('calls.total');
            // Every call the daemon made, and the emulator counted (no other client ran).
            assert.equal(total, f.em.admin.calls().total);
          } finally {
            ledger.close();
          }
        } finally {
          await d.dispose();
        }
      },
      { config: { watch: { fullSweepMinutes: 0.02 } } },
    );
  });
});
