import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

test('a move whose create dies after the service made the document: the next run adopts that document, pulls no extra file and deletes the old one', async () => {
  await withSyncFixture(async (f) => {
    await f.write('plan.md', '---\ntitle: Q3/Q4 plan\n---\n# Plan\n\nGoals.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000);
    await mkdir(join(f.root, 'archive'));
    await rename(join(f.root, 'plan.md'), join(f.root, 'archive', 'plan.md'));

    const crashed = await f.sync([], { KBSYNC_CRASH_AT: 'after-create' });
    assert.equal(crashed.signal ?? crashed.code, 'SIGKILL');
    assert.equal(f.remoteDocs().filter((d) => d.title === 'Q3/Q4 plan').length, 2, 'the crash left the new document beside the old');

    const next = await f.sync();
    assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
    const docs = f.remoteDocs().filter((d) => d.title === 'Q3/Q4 plan');
    assert.equal(docs.length, 1, 'the old document is deleted, the new one adopted (not a third)');
    const folder = f.em.admin.dump().nodes.find((n) => n.dentryUuid === docs[0]?.parentId);
    assert.equal(folder?.title, 'archive');
    assert.deepEqual((await readdir(join(f.root, 'archive'))).sort(), ['plan.md'], 'no extra file pulled from the orphan');
    assert.deepEqual((await readdir(f.root)).filter((n) => n.endsWith('.md')), []);
    const steady = await f.sync();
    assert.deepEqual(steady.report?.planned, []);
  });
});
