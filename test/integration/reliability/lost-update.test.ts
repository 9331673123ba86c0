import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { isConflictCopy, localFiles } from '../../helpers/reliability.js';

/**
 * The service has no conditional write, so two writers can race: B reads the document, A overwrites it,
 * then B overwrites it with B's copy, which still holds what A changed as it was before. To A that looks
 * exactly like a remote edit putting its words back. Taken as one, A's published edit would vanish from
 * A's own file and survive only in a backup; held as a conflict, it waited for a person though kbsync knew
 * both texts (issue 44: soak seed 500). It is repaired: A's words stay and are published again, with B's
 * other edits merged in, and the run says so once.
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

test('a racing overwrite that puts back a paragraph we just published is repaired: ours published again, theirs merged, said once', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.', 'Middle paragraph, amarker.'));
    assert.match(f.remoteDoc('Shared').markdown ?? '', /amarker/);

    // B read START before A's write, edited the last paragraph, and overwrote after A's write.
    staleOverwrite(f, (text) => text.replace('Last paragraph.', 'Last paragraph, bmarker.'));
    const run = await f.sync();
    assert.equal(run.code, 0, `no person needed: ${run.stderr}`);
    const file = await f.read('shared.md');
    assert.match(file, /amarker/, 'A keeps its published words');
    assert.match(file, /bmarker/, "B's own edit of another paragraph is merged");
    assert.deepEqual(await copiesOf(f), [], 'no conflict copy');
    const doc = f.remoteDoc('Shared').markdown ?? '';
    assert.match(doc, /amarker/, 'the document has A\'s words again');
    assert.match(doc, /bmarker/);
    assert.match(JSON.stringify(run.report?.results), /LOST_UPDATE_REPAIRED: another writer's save, made from a copy read before your last push landed, put back what you had published at line 5/);

    // Said once: the next runs have nothing to say and nothing to send.
    f.em.admin.setClockOffset(2 * 60_000);
    const next = await f.sync();
    assert.equal(next.code, 0);
    assert.doesNotMatch(JSON.stringify(next.report?.results), /LOST_UPDATE/);
    const calm = await f.sync();
    assert.deepEqual(Object.keys(calm.report?.callsByEndpoint ?? {}).filter((e) => e !== 'listNodes' && e !== 'getWorkspace'), [], 'after it, a run sends and reads nothing');
    assert.equal(await f.read('shared.md'), START.replace('Middle paragraph.', 'Middle paragraph, amarker.').replace('Last paragraph.', 'Last paragraph, bmarker.'));
  });
});

test('a racing overwrite that drops a paragraph we just added is repaired too', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.\n', 'Middle paragraph.\n\nAdded paragraph, amarker.\n'));
    staleOverwrite(f, (text) => text.replace('First paragraph.', 'First paragraph, bmarker.'));
    const run = await f.sync();
    assert.equal(run.code, 0, run.stderr);
    const file = await f.read('shared.md');
    assert.match(file, /Added paragraph, amarker/);
    assert.match(file, /bmarker/);
    assert.deepEqual(await copiesOf(f), []);
    assert.match(f.remoteDoc('Shared').markdown ?? '', /Added paragraph, amarker[\s\S]*/);
    assert.match(f.remoteDoc('Shared').markdown ?? '', /bmarker/);
  });
});

test('a pull-only run keeps the repaired words in the file, and the next two-way run publishes them', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.', 'Middle paragraph, amarker.'));
    staleOverwrite(f, (text) => text.replace('Last paragraph.', 'Last paragraph, bmarker.'));
    assert.equal((await f.sync(['--pull'])).code, 0);
    assert.match(await f.read('shared.md'), /amarker[\s\S]*bmarker/);
    assert.doesNotMatch(f.remoteDoc('Shared').markdown ?? '', /amarker/);
    const run = await f.sync();
    assert.equal(run.code, 0, run.stderr);
    assert.match(f.remoteDoc('Shared').markdown ?? '', /amarker[\s\S]*bmarker/);
  });
});

test('once a later run has seen our write standing, the same change back, with no writer\'s record in the minutes one takes, is a colleague\'s edit and is pulled', async () => {
  await withSyncFixture(async (f) => {
    await publishOverStart(f, (text) => text.replace('Middle paragraph.', 'Middle paragraph, amarker.'));
    // The re-check of our own write (its minute-precision time) finds it standing.
    f.em.admin.setClockOffset(2 * 60_000);
    const recheck = await f.sync();
    assert.equal(recheck.code, 0);
    const doc = f.remoteDoc('Shared');
    f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Middle paragraph, amarker.', 'Middle paragraph.'));
    // A moment after it, the undo may be another kbsync's overwrite from a copy read before our write, its record on
    // its way (merge-read-between-writes.test.ts): nothing is decided, nor said.
    const waited = await f.sync();
    assert.equal(waited.code, 0, waited.stderr);
    assert.deepEqual(waited.report?.results.filter((r) => !r.ok || r.result !== 'unchanged' || r.detail !== undefined), []);
    assert.match(await f.read('shared.md'), /amarker/);
    assert.match(f.remoteDoc('Shared').markdown ?? '', /^Middle paragraph\.$/m, 'nor is the undo written over');
    // No record came in the minutes a writer's takes: it was a colleague's undo.
    f.em.admin.setClockOffset(5 * 60_000);
    const run = await f.sync();
    assert.equal(run.code, 0, run.stderr + JSON.stringify(run.report));
    assert.equal(await f.read('shared.md'), START);
    assert.deepEqual(await copiesOf(f), []);
  });
});
