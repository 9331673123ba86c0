import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLedger } from '../../../src/ledger/index.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

const doc = (title: string, one: string, two = 'Second paragraph.'): string => `# ${title}\n\n${one}\n\n${two}\n`;

async function status(f: SyncFixture, args: readonly string[] = []): Promise<StatusReport & { code: number | null }> {
  const result = await f.cli(['status', '--json', ...args]);
  assert.equal(result.code, 0, result.stderr);
  return { ...(JSON.parse(result.stdout) as StatusReport), code: result.code };
}

const stateOf = (report: StatusReport, path: string): string | undefined => report.files.find((file) => file.path === path)?.state;

test('status names each file clean, local-changed, remote-changed, diverged, conflict or new, and works while another process holds the ledger', async () => {
  await withSyncFixture(async (f) => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await f.write(`${name}.md`, doc(name.toUpperCase(), 'First paragraph.'));
    assert.equal((await f.sync()).code, 0);

    // A real clash on e.md: both sides change the same paragraph differently, so the sync writes a conflict copy.
    await f.write('e.md', doc('E', 'First, as I wrote it.'));
    f.em.admin.editDocument(f.remoteDoc('E').dentryUuid, doc('E', 'First, as Grace wrote it.'));
    const clash = await f.sync();
    assert.equal(clash.report?.conflicts.length, 1, clash.stdout);

    await f.write('b.md', doc('B', 'First paragraph, edited here.'));
    f.em.admin.editDocument(f.remoteDoc('C').dentryUuid, doc('C', 'First paragraph, edited there.'));
    await f.write('d.md', doc('D', 'First paragraph, edited here.'));
    f.em.admin.editDocument(f.remoteDoc('D').dentryUuid, doc('D', 'First paragraph.', 'Second, edited there.'));
    await f.write('new.md', '# New\n\nNot synced yet.\n');

    const report = await status(f);
    assert.equal(stateOf(report, 'a.md'), 'clean');
    assert.equal(stateOf(report, 'b.md'), 'local-changed');
    assert.equal(stateOf(report, 'c.md'), 'remote-changed');
    // Both changed other paragraphs of a page a read shows whole: the sync merges both ways (merge.webEdits).
    assert.equal(stateOf(report, 'd.md'), 'diverged');
    assert.equal(report.files.find((file) => file.path === 'd.md')?.action, 'merge');
    assert.equal(stateOf(report, 'e.md'), 'conflict');
    assert.equal(stateOf(report, 'new.md'), 'new-local');
    assert.deepEqual(report.counts, { clean: 1, 'local-changed': 1, 'remote-changed': 1, diverged: 1, conflict: 1, 'new-local': 1 });
    assert.equal(report.conflictCopies.length, 1);
    assert.match(report.conflictCopies[0] as string, /^e\.conflict-\d{8}-\d{6}\.md$/);
    assert.deepEqual(report.openIntents, []);
    assert.equal(report.queue, null, 'no daemon runs, so nothing waits in one');
    assert.equal(typeof report.backups.bytes, 'number');
    assert.equal(report.backups.keepPerFile, 20);
    assert.deepEqual(report.remoteState && [report.remoteState.folder, report.remoteState.index >= 1, report.remoteState.sources >= 1], ['.kbsync', true, true], 'where the shared state lives');
    assert.ok(report.calls.thisCommand >= 1, 'the listing is counted');
    assert.equal(report.lock, null);
    assert.equal(report.files.find((file) => file.path === 'b.md')?.action, 'push');
    assert.equal(report.files.find((file) => file.path === 'c.md')?.action, 'pull');

    // Offline: no call at all, local changes still seen, remote ones unknown.
    const offline = await status(f, ['--offline']);
    assert.equal(offline.calls.thisCommand, 0);
    assert.equal(stateOf(offline, 'b.md'), 'local-changed');
    assert.equal(stateOf(offline, 'c.md'), 'clean');

    // The human form lists what is not clean.
    const human = await f.cli(['status']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^\\S+notes ⇄ "Team Docs" \\(${f.em.seed.workspaceId}\\)\\n`), 'the workspace by name, learnt by the first sync');
    assert.match(human.stdout, /local-changed\s+b\.md\s+→ your edits will be pushed/);
    assert.match(human.stdout, /remote-changed\s+c\.md\s+→ edits from the knowledge base will be pulled into the file/);
    assert.match(human.stdout, /Conflict copies waiting/);
    assert.match(human.stdout, /Remote state: \.kbsync at the synced root, \d+ index and \d+ sources document\(s\)/);
    assert.doesNotMatch(human.stdout, /\ba\.md\b/);

    // Another process (here: this test) holds the ledger's lock, as a running daemon does.
    const held = openLedger(join(f.root, '.kbsync', 'ledger.sqlite'));
    try {
      const whileLocked = await status(f);
      assert.equal(whileLocked.lock?.pid, process.pid);
      assert.equal(whileLocked.lock?.alive, true);
      assert.equal(stateOf(whileLocked, 'b.md'), 'local-changed');
      const sync = await f.sync();
      assert.equal(sync.code, 3, 'a sync, unlike status, must wait for the lock');
      assert.match(sync.stderr, /LEDGER_LOCKED/);
    } finally {
      held.close();
    }
  });
});

test('status before the first sync shows every file as new and works without a ledger', async () => {
  await withSyncFixture(async (f) => {
    await f.write('one.md', '# One\n');
    const report = await status(f);
    assert.deepEqual(report.files.map((file) => [file.path, file.state, file.action]), [['one.md', 'new-local', 'create']]);
    assert.equal(await f.exists('.kbsync/ledger.sqlite'), false, 'status created no ledger');
    f.em.admin.createDocument({ name: 'From the web', markdown: 'Hello.\n' });
    const human = await f.cli(['status']);
    assert.match(human.stdout, /new-local\s+one\.md\s+→ new file: a document will be created/);
    assert.match(human.stdout, /new-remote\s+From the web\.md\s+→ new in the knowledge base: it will be pulled/);
  });
});

test('status shows the notices a sync would give (a title the service cannot rename), as a sync says them', async () => {
  await withSyncFixture(async (f) => {
    await f.write('plan.md', '# Plan\n\nText.\n');
    assert.equal((await f.sync()).code, 0);
    await f.write('plan.md', '# Roadmap\n\nText.\n');
    const report = await status(f);
    assert.deepEqual(report.notices.map((notice) => [notice.path, notice.code]), [['plan.md', 'TITLE_KEPT']]);
    const human = await f.cli(['status']);
    assert.match(human.stdout, /^i plan\.md: its title is now "Roadmap", but the document keeps "Plan".*\[TITLE_KEPT\]$/m);
    assert.deepEqual((await f.sync()).report?.notices, report.notices, 'the sync says the same');
  });
});
