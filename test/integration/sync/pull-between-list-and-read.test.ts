import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReadGate } from '../../helpers/held-read.js';

/**
 * A document this machine pulls for the first time gets its body between the run's listing (which shows it
 * empty, in its creation minute) and its read (which shows the body, written a minute later). The soak on main
 * (seed 500) said HIDDEN_EDIT and held the file: another machine wrote the first body of a document it had just
 * created, and the new file's record kept the listing's minute, so the body's minute, at the next listing, over
 * blocks already pulled, was taken for an edit reads cannot show. The run's read waits at a proxy until the body
 * is written.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

test('a body written between the listing and the read of a new document: its minute is no hidden edit', async () => {
  await withReadGate(EPOCH, async ({ em, f, tick, holdNextRead }) => {
    assert.equal((await f.sync()).code, 0);
    const doc = em.admin.createDocument({ name: 'Fresh', markdown: '' });

    const read = holdNextRead();
    const pulling = f.sync();
    await read.reached;
    tick();
    em.admin.editDocument(doc.dentryUuid, '# Fresh\n\nIts first body.\n');
    read.release();
    const pulled = await pulling;
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(await f.read('Fresh.md'), '# Fresh\n\nIts first body.\n');

    tick();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.doesNotMatch(JSON.stringify(next.report), /HIDDEN_EDIT/, 'no hidden edit said');
    assert.deepEqual(next.report?.results.filter((r) => r.ok && r.result === 'held'), [], 'nothing held');
  });
});
