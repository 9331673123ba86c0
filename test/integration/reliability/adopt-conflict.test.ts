import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { isConflictCopy, localFiles, writeCalls } from '../../helpers/reliability.js';

/**
 * Regression (found by the two-writers test): a file linked to an existing document with a different
 * body and no shared history is a conflict that "stays put until the user edits the file". But the
 * next run pushed the file over the document anyway whenever it ran within the same minute (the
 * re-check of our own write), and left both apart otherwise: which version the knowledge base held
 * depended on the clock.
 */
test('after linking with a conflict, re-checks push nothing until the user edits the file', async () => {
  await withSyncFixture(async (f) => {
    f.em.admin.createDocument({ name: 'Doc', markdown: '# Doc\n\nTheir words.\n' });
    await f.write('doc.md', '# Doc\n\nMy words.\n');
    const linked = await f.sync();
    assert.equal(linked.code, 0, linked.stderr);
    assert.equal(linked.report?.conflicts.length, 1);
    for (let i = 0; i < 2; i++) {
      f.em.admin.resetCalls();
      const again = await f.sync();
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(writeCalls(f.em.admin.calls()), {}, 'a re-check must not decide the conflict');
      assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nTheir words.\n');
      assert.equal(await f.read('doc.md'), '# Doc\n\nMy words.\n');
    }
    // The user settles it by editing the file: now it is pushed, and the copy still holds their words.
    await f.write('doc.md', '# Doc\n\nMy words, and theirs.\n');
    const settled = await f.sync();
    assert.equal(settled.code, 0, settled.stderr);
    assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nMy words, and theirs.\n');
    const copies = [...(await localFiles(f.root))].filter(([path]) => isConflictCopy(path));
    assert.equal(copies.length, 1);
    assert.match(copies[0]?.[1] ?? '', /Their words/);
  });
});
