import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiffReport } from '../../../src/cli/commands/diff.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** path → action, from each of the four places that say what a sync does. */
async function fourViews(f: SyncFixture, modeFlags: readonly string[]) {
  const status = await f.cli(['status', '--json', ...modeFlags]);
  assert.equal(status.code, 0, status.stderr);
  const diff = await f.cli(['diff', '--json', ...modeFlags]);
  assert.equal(diff.code, 0, diff.stderr);
  const dry = await f.sync(['--dry-run', ...modeFlags]);
  const run = await f.sync(modeFlags);
  const statusReport = JSON.parse(status.stdout) as StatusReport;
  return {
    status: Object.fromEntries(statusReport.files.filter((file) => file.action).map((file) => [file.path, file.action])),
    diff: Object.fromEntries((JSON.parse(diff.stdout) as DiffReport).files.map((file) => [file.path, file.kind])),
    dryRun: Object.fromEntries((dry.report?.planned ?? []).map((p) => [p.path, p.kind])),
    run: Object.fromEntries((run.report?.results ?? []).filter((r) => r.action !== 'none').map((r) => [r.path, r.action])),
    runReport: run.report,
  };
}

test('status, diff, sync --dry-run and the run name the same action for every file: held, rename, move, merge', async () => {
  await withSyncFixture(async (f) => {
    await f.write('emptied.md', '# Emptied\n\nWords that will vanish.\n');
    await f.write('renamed.md', '# Renamed\n\nStays in its folder.\n');
    await f.write('moved.md', '# Moved\n\nGoes to another folder.\n');
    await f.write('merged.md', '# Merged\n\nFirst.\n\nSecond.\n');
    await mkdir(join(f.root, 'archive'));
    f.em.admin.createDocument({ name: 'Colleague', markdown: '# Colleague\n\nTheir page.\n' });
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000); // our writes' minute is over: the listing can be trusted

    await writeFile(join(f.root, 'emptied.md'), '');
    await rename(join(f.root, 'renamed.md'), join(f.root, 'renamed-too.md'));
    await rename(join(f.root, 'moved.md'), join(f.root, 'archive', 'moved.md'));
    await f.write('merged.md', '# Merged\n\nFirst, edited here.\n\nSecond.\n');
    f.em.admin.editDocument(f.remoteDoc('Merged').dentryUuid, '# Merged\n\nFirst.\n\nSecond, edited there.\n');
    await f.remove('Colleague.md');

    const views = await fourViews(f, []);
    const expected = {
      'Colleague.md': 'held',
      'archive/moved.md': 'move',
      'emptied.md': 'held',
      // Both sides changed other paragraphs of a page a read shows whole: merged both ways (merge.webEdits).
      'merged.md': 'merge',
      'renamed-too.md': 'rename',
    };
    assert.deepEqual(views.status, expected, 'status');
    assert.deepEqual(views.diff, expected, 'diff');
    assert.deepEqual(views.dryRun, expected, 'sync --dry-run');
    assert.deepEqual(views.run, expected, 'the run');
    assert.equal(await f.read('merged.md'), '# Merged\n\nFirst, edited here.\n\nSecond, edited there.\n');
    assert.equal(f.remoteDoc('Merged').markdown, '# Merged\n\nFirst, edited here.\n\nSecond, edited there.\n');
    const moved = f.remoteDoc('Moved');
    const archive = f.em.admin.dump().nodes.find((n) => n.dentryUuid === moved.parentId);
    assert.equal(archive?.title, 'archive', 'the moved file has its document in the mirrored folder, and only there');
    assert.equal(f.remoteDoc('Emptied').markdown, '# Emptied\n\nWords that will vanish.\n', 'the emptied file did not wipe its document');
  });
});

test('under --push, a document edited remotely is held in all four views', async () => {
  await withSyncFixture(async (f) => {
    await f.write('doc.md', '# Doc\n\nOne.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000);
    f.em.admin.editDocument(f.remoteDoc('Doc').dentryUuid, '# Doc\n\nOne, edited there.\n');
    await f.write('doc.md', '# Doc\n\nOne, edited here.\n');
    const views = await fourViews(f, ['--push']);
    const expected = { 'doc.md': 'held' };
    assert.deepEqual([views.status, views.diff, views.dryRun, views.run], [expected, expected, expected, expected]);
    assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nOne, edited there.\n');
  });
});

test('three no-op two-way runs beside a held delete make only listing calls, and say the hold once', async () => {
  await withSyncFixture(async (f) => {
    f.em.admin.createDocument({ name: 'Colleague', markdown: '# Colleague\n\nTheir page.\n' });
    await f.write('mine.md', '# Mine\n\nMine.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000);
    assert.equal((await f.sync()).code, 0, 'the re-reads of our own writes');
    await f.remove('Colleague.md');
    const first = await f.sync();
    assert.deepEqual(first.report?.results.map((r) => r.ok && [r.path, r.action, r.reason, r.repeated ?? false]), [['Colleague.md', 'held', 'NOT_CREATED', false]]);
    for (let run = 0; run < 3; run += 1) {
      const again = await f.sync();
      assert.deepEqual(Object.keys(again.report?.callsByEndpoint ?? {}), ['listNodes'], JSON.stringify(again.report?.callsByEndpoint));
      assert.deepEqual(again.report?.results.map((r) => r.ok && [r.path, r.action, r.repeated]), [['Colleague.md', 'held', true]]);
    }
    assert.ok(f.remoteDocs().some((d) => d.title === 'Colleague'), "a colleague's document is never deleted");
  });
});
