import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { waitUntil, withDaemon, type Daemon } from './daemon-process.js';

const A = '# A\n\nFirst paragraph.\n\nSecond paragraph.\n';
const calls = (f: SyncFixture) => structuredClone(f.em.admin.calls().byEndpoint);
/** Edits sent (the first cycle created the document: that line says "created"). */
const sentCount = (d: Daemon, path: string) => d.logs.filter((line) => line.msg === `${path}: sent to the knowledge base`).length;

describe('kbsync watch: local changes', () => {
  test('an edit saved in the folder reaches the service with one look at its node, one re-read and one overwrite (read back once its minute is over), and no listing', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', A);
        await f.write('b.md', '# B\n\nOther.\n');
        await withDaemon(f, {}, async (d) => {
          const before = calls(f);
          await f.write('a.md', A.replace('First paragraph.', 'First paragraph, edited.'));
          await waitUntil(() => sentCount(d, 'a.md') === 1, 'the edit to be pushed');
          assert.match(f.remoteDoc('A').markdown ?? '', /First paragraph, edited\./);
          const after = calls(f);
          assert.equal(after.listNodes.calls, before.listNodes.calls, 'a local edit must not list the remote tree');
          // Its time, which an edit inside code moves though every block reads the same.
          assert.equal(after.getNode.calls - before.getNode.calls, 1, 'one look at the document\'s node');
          assert.equal(after.overwriteContent.calls - before.overwriteContent.calls, 1);
          // The re-read before the overwrite; the overwrite is read back by a later look, once its minute is over.
          assert.equal(after.readBlocks.calls - before.readBlocks.calls, 1);
          assert.equal(f.remoteDocs().length, 2);
        });
      },
      { config: { watch: { pollBudgetPerHour: 0 } } },
    );
  });

  test('an editor-style atomic save (temp file renamed over the file) is one overwrite of the same document, never a delete', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', A);
        await withDaemon(f, {}, async (d) => {
          const doc = f.remoteDoc('A');
          const before = calls(f);
          // Writes to A itself: the push also appends to kbsync's state documents, which are not A's overwrites.
          const writesToA = () => {
            const onA = f.em.admin.callsOn(doc.dentryUuid);
            return (onA.overwriteContent ?? 0) + (onA.appendText ?? 0);
          };
          const writesBefore = writesToA();
          // vim/VS Code style: write a temp file beside it, then rename it over the original.
          const temp = join(f.root, '.a.md.swp');
          await writeFile(temp, A.replace('Second paragraph.', 'Second paragraph, saved atomically.'));
          await rename(temp, join(f.root, 'a.md'));
          await waitUntil(() => sentCount(d, 'a.md') === 1, 'the atomic save to be pushed');
          // Give any stray follow-up cycle (the rename's other events) the time to happen before counting.
          await new Promise((resolve) => setTimeout(resolve, 2000));
          const after = calls(f);
          const same = f.remoteDoc('A');
          assert.equal(same.dentryUuid, doc.dentryUuid, 'the document keeps its id');
          assert.match(same.markdown ?? '', /saved atomically/);
          assert.equal(writesToA() - writesBefore, 1, 'one write to the document');
          // Every other write went to the state documents: at most one append per family (index, sources).
          const allWrites = after.overwriteContent.calls - before.overwriteContent.calls + after.appendText.calls - before.appendText.calls;
          assert.ok(allWrites - 1 <= 2, `${allWrites - 1} writes besides the document's own`);
          assert.equal(after.deleteDocument.calls, before.deleteDocument.calls);
          assert.equal(after.createDocument.calls, before.createDocument.calls);
          assert.equal(f.remoteDocs().length, 1);
        });
      },
      { config: { watch: { pollBudgetPerHour: 0 } } },
    );
  });

  test('a failing watcher (ENOSPC) gives one warning, then periodic rescans still sync edits and delete nothing', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', A);
        await f.write('b.md', '# B\n\nOther.\n');
        await withDaemon(f, { KBSYNC_TEST_WATCHER_ERROR: 'ENOSPC' }, async (d) => {
          await d.waitForLog((line) => line.code === 'WATCHER_FAILED', 'the fallback warning');
          await f.write('a.md', A.replace('First paragraph.', 'First paragraph, found by a rescan.'));
          await waitUntil(() => /found by a rescan/.test(f.remoteDoc('A').markdown ?? ''), 'a rescan to push the edit');
          const rescans = () => d.logs.filter((line) => line.msg.startsWith('local cycle done')).length;
          const seen = rescans();
          await waitUntil(() => rescans() >= seen + 2, 'two more rescans');
          const warnings = d.logs.filter((line) => line.code === 'WATCHER_FAILED');
          assert.equal(warnings.length, 1);
          assert.equal(warnings[0]?.level, 40);
          assert.match(String(warnings[0]?.msg), /inotify|watches/);
          assert.equal(f.remoteDocs().length, 2);
          assert.equal(f.em.admin.calls().byEndpoint.deleteDocument.calls, 0);
        });
      },
      { config: { watch: { pollBudgetPerHour: 0, rescanMinutes: 0.01 } } },
    );
  });
});
