import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Soak seed 12: a file renamed while its conflict was open was left behind. Its record stayed at the old name,
 * `kbsync resolve` listed nothing, the hold named a file that no longer existed, and every later edit of the
 * renamed file stayed on this machine without a word. The conflict follows the file.
 */

/** c.md in conflict: both sides changed its paragraph. */
async function inConflict(f: SyncFixture): Promise<void> {
  await f.write('c.md', '# C\n\nShared paragraph.\n');
  assert.equal((await f.sync()).code, 0);
  f.em.admin.setClockOffset(2 * 60_000);
  f.em.admin.editDocument(f.remoteDoc('C').dentryUuid, '# C\n\nShared paragraph, their words.\n');
  await f.write('c.md', '# C\n\nShared paragraph, my words.\n');
  assert.equal((await f.sync()).report?.conflicts.length, 1);
}

for (const [where, to] of [['in its folder', 'renamed.md'], ['to another folder', 'sub/renamed.md']] as const) {
  test(`a file renamed ${where} while in conflict takes its conflict along: said, listed by resolve, settled under its new name`, async () => {
    await withSyncFixture(async (f) => {
      await inConflict(f);
      await mkdir(join(f.root, 'sub'), { recursive: true });
      await rename(join(f.root, 'c.md'), join(f.root, to));
      const renamed = await f.sync();
      assert.equal(renamed.code, 1);
      const held = renamed.report?.results.find((r) => r.path === to);
      assert.ok(held?.ok && held.result === 'held' && held.reason === 'CONFLICT_OPEN' && held.repeated !== true, JSON.stringify(renamed.report?.results));
      assert.match(held.detail ?? '', new RegExp(`renamed from c\\.md, its conflict along with it: .*kbsync resolve ${to.replace('.', '\\.')}`));
      const listed = await f.cli(['resolve', '--json']);
      assert.deepEqual((JSON.parse(listed.stdout) as { conflicts: { path: string }[] }).conflicts.map((c) => c.path), [to]);
      assert.equal(f.remoteDoc('C').markdown, '# C\n\nShared paragraph, their words.\n', 'the knowledge base keeps its version meanwhile');

      assert.equal((await f.cli(['resolve', '--mine', to])).code, 0);
      const settled = await f.sync();
      assert.equal(settled.code, 0, JSON.stringify(settled.report?.results));
      assert.equal(f.remoteDocs().length, 1, 'one document still');
      assert.equal(f.remoteDoc('C').markdown, '# C\n\nShared paragraph, my words.\n');
      await f.write(to, '# C\n\nShared paragraph, my words, and more.\n');
      assert.equal((await f.sync()).code, 0);
      assert.match(f.remoteDoc('C').markdown ?? '', /and more/, 'later edits go out');
    });
  });
}
