import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { isConflictCopy, localFiles, writeCalls } from '../../helpers/reliability.js';

/**
 * Regression (found by the two-writers test): a file linked to an existing document with a different
 * body and no shared history is a conflict that "stays put until the user edits the file". But the
 * next run pushed the file over the document anyway whenever it ran within the same minute (the
 * re-check of our own write), and left both apart otherwise: which version the knowledge base held
 * depended on the clock.
 */
test('after linking with a conflict, nothing is pushed until the person resolves it; deleting the copy by hand resolves it', async () => {
  await withSyncFixture(async (f) => {
    f.em.admin.createDocument({ name: 'Doc', markdown: '# Doc\n\nTheir words.\n' });
    await f.write('doc.md', '# Doc\n\nMy words.\n');
    const linked = await f.sync();
    // An open conflict is held work: the run says so with exit 1.
    assert.equal(linked.code, 1, linked.stderr);
    assert.equal(linked.report?.conflicts.length, 1);
    const copyPath = async (): Promise<string | undefined> => [...(await localFiles(f.root)).keys()].find((path) => isConflictCopy(path));
    for (let i = 0; i < 2; i++) {
      f.em.admin.resetCalls();
      const again = await f.sync();
      assert.equal(again.code, 1, again.stderr);
      assert.deepEqual(writeCalls(f.em.admin.calls()), {}, 'a re-check must not decide the conflict, nor write anything');
      assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nTheir words.\n');
      assert.equal(await f.read('doc.md'), '# Doc\n\nMy words.\n');
    }
    // Editing the file alone does not settle it: the copy still stands for their side.
    await f.write('doc.md', '# Doc\n\nMy words, and theirs.\n');
    f.em.admin.resetCalls();
    const edited = await f.sync();
    assert.equal(edited.code, 1, edited.stderr);
    assert.deepEqual(writeCalls(f.em.admin.calls()), {});
    assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nTheir words.\n');
    // Deleting the copy is the person's "done": the file is published.
    const copy = await copyPath();
    assert.ok(copy, 'the conflict copy is in the folder');
    assert.match(await f.read(copy), /Their words/);
    await rm(join(f.root, copy));
    const settled = await f.sync();
    assert.equal(settled.code, 0, settled.stderr);
    assert.equal(f.remoteDoc('Doc').markdown, '# Doc\n\nMy words, and theirs.\n');
    assert.equal(await copyPath(), undefined);
  });
});
