import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { explainFsError } from '../../../src/local/index.js';
import { makeUnwritable } from '../../helpers/read-only.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

test('file-system refusals are said in words, with the path and what to do', () => {
  const denied = explainFsError(Object.assign(new Error("EACCES: permission denied, open '/x/a.md'"), { code: 'EACCES', path: '/x/a.md' }));
  assert.match(String((denied as Error).message), /kbsync could not write \/x\/a\.md: permission denied\. Give your user read and write access/);
  assert.equal((denied as { code: string }).code, 'PERMISSION_DENIED');
  const full = explainFsError(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }), 'notes/b.md');
  assert.match(String((full as Error).message), /notes\/b\.md: the disk is full/);
  const other = new Error('something else');
  assert.equal(explainFsError(other), other, 'errors that are not about permissions pass through');
});

test('a ledger that cannot be written: one clear error naming it and what to do, nothing synced', async (t) => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nOne.\n');
    assert.equal((await f.sync()).code, 0);
    const ledger = join(f.root, '.kbsync', 'ledger.sqlite');
    const undo = makeUnwritable(ledger);
    if (!undo) return t.skip('this machine can make no file unwritable for this user');
    try {
      await f.write('a.md', '# A\n\nOne, edited.\n');
      const run = await f.sync();
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /cannot write its ledger .*ledger\.sqlite.*Give your user write access/s);
      assert.match(run.stderr, /LEDGER_NOT_WRITABLE/);
      assert.doesNotMatch(run.stderr, /SQLITE_|attempt to write/);
      assert.equal(f.remoteDoc('A').markdown, '# A\n\nOne.\n');
    } finally {
      undo();
    }
  });
});

test('a file that cannot be written during a pull: that file fails in words, the others sync', async (t) => {
  await withSyncFixture(async (f) => {
    await f.write('locked/a.md', '# A\n\nOne.\n');
    await f.write('b.md', '# B\n\nTwo.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000);
    f.em.admin.editDocument(f.remoteDoc('A').dentryUuid, '# A\n\nOne, edited there.\n');
    f.em.admin.editDocument(f.remoteDoc('B').dentryUuid, '# B\n\nTwo, edited there.\n');
    const undo = makeUnwritable(join(f.root, 'locked'));
    if (!undo) return t.skip('this machine can make no folder unwritable for this user');
    try {
      const run = await f.sync();
      assert.equal(run.code, 1);
      const failed = run.report?.results.find((r) => !r.ok);
      assert.ok(failed && !failed.ok);
      assert.equal(failed.path, 'locked/a.md');
      assert.match(failed.code, /PERMISSION_DENIED/);
      assert.match(failed.error, /kbsync could not write .*locked.*(permission denied|not permitted)/);
      assert.equal(await f.read('b.md'), '# B\n\nTwo, edited there.\n');
    } finally {
      undo();
    }
  });
});
