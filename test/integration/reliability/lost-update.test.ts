import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { isConflictCopy, localFiles } from '../../helpers/reliability.js';

/**
 * The service has no conditional write, so two writers can race: B reads the document, A overwrites it,
 * then B overwrites it with B's copy, which still holds what A changed as it was before. To A that looks
 * exactly like a remote edit putting its words back. Taken as one, A's published edit would vanish from
 * A's own file and survive only in a backup. It must be a conflict instead.
 */

const START = '# Shared\n\nFirst paragraph.\n\nMiddle paragraph.\n\nLast paragraph.\n';

const copiesOf = async (f: SyncFixture): Promise<string[]> => [...(await localFiles(f.root)).keys()].filter(isConflictCopy);

/** START synced, then `edit` of it published by this machine: the write a racing writer may undo. */
async function publishOverStart(f: SyncFixture, edit: (text: string) => string): Promise<void> {
  await f.write('shared.md', START);
  assert.equal((await f.sync()).code, 0);
  await f.write('shared.md', edit(START));
  assert.equal((await f.sync()).code, 0, 'A publishes its edit');
}

/** Another writer's overwrite made from a copy read before `f`'s last push: `edit` applied to START. */
function staleOverwrite(f: SyncFixture, edit: (text: string) => string): void {
  f.em.admin.editDocument(f.remoteDoc('Shared').dentryUuid, edit(START));
}

test('a racing overwrite that puts back a paragraph we just published is a conflict, not a silent revert', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.', 'Middle paragraph, amarker.'));
    assert.match(f.remoteDoc('Shared').markdown ?? '', /amarker/);

    // B read START before A's write, edited the last paragraph, and overwrote after A's write.
    staleOverwrite(f, (text) => text.replace('Last paragraph.', 'Last paragraph, bmarker.'));
    const run = await f.sync();
    assert.equal(run.code, 1, `held for a person: ${run.stderr}`);
    const file = await f.read('shared.md');
    assert.match(file, /amarker/, 'A keeps its published words');
    assert.match(file, /bmarker/, "B's own edit of another paragraph is merged");
    const copies = await copiesOf(f);
    assert.equal(copies.length, 1);
    assert.match(await f.read(copies[0] ?? ''), /Middle paragraph\.\n/);
    assert.match(JSON.stringify(run.report?.results), /put back what you had published at line 5/, 'the run says what happened, and where');

    // Later (no re-check of that run's write is due): settling must still publish, though the file itself
    // did not change since the conflict.
    f.em.admin.setClockOffset(2 * 60_000);
    const resolved = await f.cli(['resolve', '--mine', 'shared.md']);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Shared').markdown ?? '';
    assert.match(doc, /amarker/);
    assert.match(doc, /bmarker/);
  });
});

test('a racing overwrite that drops a paragraph we just added is a conflict too', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.\n', 'Middle paragraph.\n\nAdded paragraph, amarker.\n'));
    staleOverwrite(f, (text) => text.replace('First paragraph.', 'First paragraph, bmarker.'));
    const run = await f.sync();
    assert.equal(run.code, 1, run.stderr);
    const file = await f.read('shared.md');
    assert.match(file, /Added paragraph, amarker/);
    assert.match(file, /bmarker/);
    assert.equal((await copiesOf(f)).length, 1);
  });
});

test('once a later run has seen our write standing, the same change back is a colleague\'s edit and is pulled', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.', 'Middle paragraph, amarker.'));
    // The re-check of our own write (its minute-precision time) finds it standing.
    f.em.admin.setClockOffset(2 * 60_000);
    const recheck = await f.sync();
    assert.equal(recheck.code, 0);
    const doc = f.remoteDoc('Shared');
    f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Middle paragraph, amarker.', 'Middle paragraph.'));
    const run = await f.sync();
    assert.equal(run.code, 0, run.stderr + JSON.stringify(run.report));
    assert.equal(await f.read('shared.md'), START);
    assert.deepEqual(await copiesOf(f), []);
  });
});
