import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { waitUntil, withDaemon } from '../daemon/daemon-process.js';

const NOTE = '# Note\n\nWords worth keeping.\n';

const resultOf = (run: Awaited<ReturnType<SyncFixture['sync']>>, path: string) => run.report?.results.find((result) => result.path === path);
/** Why the run held `path` (undefined: it did not), and what it said. */
const heldOf = (run: Awaited<ReturnType<SyncFixture['sync']>>, path: string): { reason?: string; detail?: string } | undefined => {
  const result = resultOf(run, path);
  return result?.ok && result.result === 'held' ? { ...(result.reason ? { reason: result.reason } : {}), ...(result.detail ? { detail: result.detail } : {}) } : undefined;
};

/** A synced note, then emptied: held as EMPTIED (exit 1), its document untouched. */
async function emptied(f: SyncFixture): Promise<void> {
  await f.write('note.md', NOTE);
  assert.equal((await f.sync()).code, 0);
  await truncate(join(f.root, 'note.md'), 0);
  const held = await f.sync();
  assert.equal(held.code, 1);
  const result = resultOf(held, 'note.md');
  assert.ok(result?.ok && result.reason === 'EMPTIED', JSON.stringify(result));
  assert.match(result.detail ?? '', /run `kbsync resolve --mine note\.md` to publish the empty file/, 'the message names the command, for this file');
  assert.doesNotMatch(result.detail ?? '', /<file>|sync --force/);
}

describe('kbsync resolve --mine / --theirs for held files', () => {
  test('EMPTIED: listed with what to do; --mine publishes the empty file at the next sync, once, and the hold is gone', async () => {
    await withSyncFixture(async (f) => {
      await emptied(f);
      const listed = JSON.parse((await f.cli(['resolve', '--json'])).stdout) as ResolveReport;
      assert.deepEqual(listed.held.map((file) => [file.path, file.code]), [['note.md', 'EMPTIED']]);
      assert.match((await f.cli(['resolve'])).stdout, /note\.md {2}held \(EMPTIED\): .*kbsync resolve --mine note\.md/);

      const named = await f.cli(['resolve', 'note.md']);
      assert.equal(named.code, 2, 'a held file needs a side');
      assert.match(named.stderr, /note\.md is held \(EMPTIED\): say which version wins.*kbsync resolve --mine note\.md/s);

      const released = await f.cli(['resolve', '--mine', 'note.md']);
      assert.equal(released.code, 0, released.stderr);
      assert.match(released.stdout, /note\.md: released \(--mine\): the next `kbsync sync` publishes the file as it is/);
      assert.equal(f.remoteDoc('Note').markdown, NOTE, 'nothing is sent by resolve itself');
      const run = await f.sync();
      assert.equal(run.code, 0, JSON.stringify(run.report?.results));
      assert.equal((f.remoteDoc('Note').markdown ?? '').trim(), '', 'the empty file was published');
      const steady = await f.sync();
      assert.deepEqual([steady.code, steady.report?.planned], [0, []], 'steady, and the release is spent');
    });
  });

  test('EMPTIED: --theirs puts the last synced text back (the empty file is backed up) and nothing is sent', async () => {
    await withSyncFixture(async (f) => {
      await emptied(f);
      const released = await f.cli(['resolve', '--theirs', 'note.md']);
      assert.equal(released.code, 0, released.stderr);
      assert.equal(await f.read('note.md'), NOTE);
      f.em.admin.resetCalls();
      const run = await f.sync();
      assert.equal(run.code, 0, JSON.stringify(run.report?.results));
      assert.equal(f.em.admin.calls().byEndpoint.overwriteContent.calls, 0);
      assert.equal(f.remoteDoc('Note').markdown, NOTE);
    });
  });

  test('a release stands for the file as it was: edited since, it is void, said, and the file is decided afresh', async () => {
    await withSyncFixture(async (f) => {
      await emptied(f);
      assert.equal((await f.cli(['resolve', '--mine', 'note.md'])).code, 0);
      await f.write('note.md', '# Note\n\nRewritten.\n');
      const run = await f.sync();
      assert.equal(run.code, 0, JSON.stringify(run.report));
      assert.match(run.report?.pending.find((item) => item.path === 'note.md')?.reason ?? '', /`kbsync resolve --mine` was given for the file and its document as they were then; one of them changed since/);
      assert.equal(f.remoteDoc('Note').markdown, '# Note\n\nRewritten.\n');
      assert.deepEqual((await f.sync()).report?.pending, [], 'the void release is gone');
    });
  });

  test('PLACEHOLDERS: --mine cannot end it (and says what can); --theirs takes the knowledge base\'s version back', async () => {
    await withSyncFixture(async (f) => {
      f.em.admin.createDocument({ name: 'Runbook', markdown: '# Runbook\n\nSteps:\n\n```sh\nrestart --all\n```\n' });
      assert.equal((await f.sync()).code, 0);
      const pulled = await f.read('Runbook.md');
      await f.write('Runbook.md', pulled.replace('Steps:', 'Steps, carefully:'));
      assert.equal((await f.sync()).code, 1);
      const refused = await f.cli(['resolve', '--mine', 'Runbook.md']);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /Runbook\.md is held \(PLACEHOLDERS\), and --mine cannot end that hold: .*placeholder.*Nothing was changed.*\[RESOLVE_CANNOT_RELEASE\]/s);
      assert.equal((await f.cli(['resolve', '--theirs', 'Runbook.md'])).code, 0);
      assert.equal(await f.read('Runbook.md'), pulled);
      assert.equal((await f.sync()).code, 0);
      assert.match(f.remoteDoc('Runbook').markdown ?? '', /restart --all/, 'the code the API never showed is still there');
    });
  });

  test('FLATTEN: --mine publishes the file as it is, once; from then on the file is the source', async () => {
    await withSyncFixture(async (f) => {
      f.em.admin.createDocument({ name: 'Guide', markdown: '# Guide\n\nRead the [install notes](https://example.com/install).\n\nThis part is **important**.\n' });
      assert.equal((await f.sync()).code, 0);
      const pulled = await f.read('Guide.md');
      await f.write('Guide.md', pulled.replace('This part', 'This section'));
      const held = await f.sync();
      assert.equal(heldOf(held, 'Guide.md')?.reason, 'FLATTEN', JSON.stringify(held.report?.results));
      assert.match(heldOf(held, 'Guide.md')?.detail ?? '', /run `kbsync resolve --mine Guide\.md` to publish the file as it is/);
      assert.equal((await f.cli(['resolve', '--mine', 'Guide.md'])).code, 0);
      assert.equal((await f.sync()).code, 0);
      assert.match(f.remoteDoc('Guide').markdown ?? '', /This section/);
      await f.write('Guide.md', (await f.read('Guide.md')).replace('This section', 'This chapter'));
      assert.equal((await f.sync()).code, 0, 'an ordinary push now');
      assert.match(f.remoteDoc('Guide').markdown ?? '', /This chapter/);
    });
  });

  test('REMOTE_EDITED (a push over a colleague\'s edit): --mine replaces the document with the file at the next push', async () => {
    await withSyncFixture(async (f) => {
      await f.write('note.md', NOTE);
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(120_000);
      f.em.admin.editDocument(f.remoteDoc('Note').dentryUuid, '# Note\n\nTheir words.\n');
      await f.write('note.md', '# Note\n\nMy words.\n');
      const held = await f.sync(['--push']);
      assert.equal(heldOf(held, 'note.md')?.reason, 'REMOTE_EDITED');
      assert.equal((await f.cli(['resolve', '--mine', 'note.md'])).code, 0);
      assert.equal((await f.sync(['--push'])).code, 0);
      assert.equal(f.remoteDoc('Note').markdown, '# Note\n\nMy words.\n');
    });
  });

  test('a file with nothing held or open is refused by name', async () => {
    await withSyncFixture(async (f) => {
      await f.write('note.md', NOTE);
      assert.equal((await f.sync()).code, 0);
      const run = await f.cli(['resolve', '--mine', 'note.md']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /note\.md has no open conflict and nothing held.*\[RESOLVE_NOTHING_OPEN\]/s);
    });
  });

  test('beside a running daemon: --mine on an emptied file is accepted at once and the daemon publishes it in its next cycle', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('note.md', NOTE);
        await f.write('other.md', '# Other\n\nStays.\n');
        await withDaemon(f, {}, async (d) => {
          await truncate(join(f.root, 'note.md'), 0);
          await d.waitForLog((line) => line.msg.startsWith('note.md: held: it is empty now'), 'the hold');
          const released = await f.cli(['resolve', '--mine', 'note.md']);
          assert.equal(released.code, 0, released.stderr);
          assert.match(released.stdout, new RegExp(`released \\(--mine\\): the running daemon \\(pid ${d.pid}\\) publishes the file as it is`));
          await waitUntil(() => (f.remoteDoc('Note').markdown ?? '').trim() === '', 'the daemon to publish the empty file');
          await d.waitForLog((line) => line.msg === 'note.md: sent to the knowledge base', 'the line for it');
          assert.equal(f.remoteDoc('Other').markdown, '# Other\n\nStays.\n');
        });
      },
      { config: { watch: { debounceMs: 100, pollBudgetPerHour: 0 } } },
    );
  });
});
