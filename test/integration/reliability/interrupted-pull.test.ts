import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { convergenceProblems, isConflictCopy, localFiles, steadyProblems } from '../../helpers/reliability.js';

/**
 * Regression (found by the chaos test, seed 101): a run that dies after writing a new remote document
 * to a file, before recording it, left a file with no ledger row. If the document was edited before the
 * rerun, the rerun saw two different bodies with "no shared history" and made a conflict copy, leaving
 * the file on the old version (exit 0, the sides disagreeing) although nobody had touched the file.
 */

const conflictCopies = async (root: string): Promise<string[]> => [...(await localFiles(root)).keys()].filter(isConflictCopy);

test('a pull interrupted after the file write, then a remote edit: the rerun finishes the pull, no conflict', async () => {
  await withSyncFixture(async (f) => {
    await f.write('keep.md', '# Keep\n\nSo the folder is not empty.\n');
    assert.equal((await f.sync()).code, 0);
    const made = f.em.admin.createDocument({ name: 'Incoming', markdown: '# Incoming\n\nFirst version.\n' });
    const crashed = await f.sync([], { KBSYNC_CRASH_AT: 'after-local-write' });
    assert.equal(crashed.signal, 'SIGKILL');
    assert.equal(await f.read('Incoming.md'), '# Incoming\n\nFirst version.\n');
    f.em.admin.editDocument(made.dentryUuid, '# Incoming\n\nSecond version.\n');
    const rerun = await f.sync();
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.deepEqual(rerun.report?.conflicts, []);
    const result = rerun.report?.results.find((r) => r.path === 'Incoming.md');
    assert.ok(result?.ok && result.result === 'pulled', JSON.stringify(result));
    assert.equal(await f.read('Incoming.md'), '# Incoming\n\nSecond version.\n');
    assert.deepEqual(await conflictCopies(f.root), []);
    assert.deepEqual(await convergenceProblems(f), []);
    assert.deepEqual(await steadyProblems(f), []);
  });
});

test('the same, but the user edited the file before the rerun: a real clash, so a conflict copy keeps the remote version until resolved', async () => {
  await withSyncFixture(async (f) => {
    await f.write('keep.md', '# Keep\n\nSo the folder is not empty.\n');
    assert.equal((await f.sync()).code, 0);
    const made = f.em.admin.createDocument({ name: 'Incoming', markdown: '# Incoming\n\nFirst version.\n' });
    assert.equal((await f.sync([], { KBSYNC_CRASH_AT: 'after-local-write' })).signal, 'SIGKILL');
    await f.write('Incoming.md', '# Incoming\n\nFirst version, edited locally.\n');
    f.em.admin.editDocument(made.dentryUuid, '# Incoming\n\nSecond version.\n');
    const rerun = await f.sync();
    // An open conflict is held work (exit 1); the knowledge base keeps what its writer published.
    assert.equal(rerun.code, 1, rerun.stderr);
    assert.equal(await f.read('Incoming.md'), '# Incoming\n\nFirst version, edited locally.\n');
    assert.match(f.remoteDoc('Incoming').markdown ?? '', /Second version/);
    const copies = await conflictCopies(f.root);
    assert.equal(copies.length, 1);
    assert.match(await f.read(copies[0] ?? ''), /Second version/);
    const resolved = await f.cli(['resolve', '--mine', 'Incoming.md']);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal((await f.sync()).code, 0);
    assert.match(f.remoteDoc('Incoming').markdown ?? '', /First version, edited locally/);
    assert.deepEqual(await conflictCopies(f.root), []);
  });
});
