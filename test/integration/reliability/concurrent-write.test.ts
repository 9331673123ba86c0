import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { convergenceProblems, locallyPresent, remotelyPresent, steadyProblems } from '../../helpers/reliability.js';

/**
 * Regression (found by the two-writers test): another writer's edit that lands between kbsync's
 * overwrite and its read-back used to be recorded as "what we pushed", so the next run saw nothing to
 * do: the file kept our version, the service kept theirs, and neither side ever got the other's edit.
 * The read-back must be checked against what was sent.
 */

/** Waits until kbsync has overwritten the document and sent its read-back (held up by latency), then edits as another user. */
async function editDuringReadBack(f: SyncFixture, title: string, edit: (markdown: string) => string): Promise<void> {
  for (;;) {
    const calls = f.em.admin.calls().byEndpoint;
    // Two reads: the re-read before the overwrite, and the read-back after it.
    if (calls.overwriteContent.calls + calls.appendText.calls >= 1 && calls.readBlocks.calls >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const doc = f.remoteDoc(title);
  f.em.admin.editDocument(doc.dentryUuid, edit(doc.markdown ?? ''));
}

test('an edit made by someone else between our overwrite and its read-back is merged, not silently dropped', async () => {
  await withSyncFixture(async (f) => {
    await f.write('race.md', '# Race\n\nFirst paragraph.\n\nSecond paragraph.\n');
    assert.equal((await f.sync()).code, 0);
    await f.write('race.md', '# Race\n\nFirst paragraph, ourwordsmarker.\n\nSecond paragraph.\n');
    f.em.admin.resetCalls();
    // Reads are slow, so the other user's edit lands while our read-back waits.
    f.em.admin.setFaults('latency=1500,only=readBlocks');
    const [run] = await Promise.all([
      f.sync(['--push']),
      editDuringReadBack(f, 'Race', (md) => md.replace('Second paragraph.', 'Second paragraph, theirwordsmarker.')),
    ]);
    f.em.admin.setFaults({});
    assert.notEqual(run.code, 0, 'the run must not claim the document is in sync');
    const result = run.report?.results.find((r) => r.path === 'race.md');
    assert.equal(result?.ok, false, JSON.stringify(result));
    assert.match(result && !result.ok ? result.error : '', /changed .* while kbsync was writing/);
    // Nothing lost: ours in the file, theirs in the service; the next run merges them.
    assert.ok(await locallyPresent(f, 'ourwordsmarker'));
    assert.ok(remotelyPresent(f, 'theirwordsmarker'));
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.match(await f.read('race.md'), /ourwordsmarker[\s\S]*theirwordsmarker/);
    assert.ok(remotelyPresent(f, 'ourwordsmarker') && remotelyPresent(f, 'theirwordsmarker'));
    assert.deepEqual(await convergenceProblems(f), []);
    assert.deepEqual(await steadyProblems(f), []);
  });
});
