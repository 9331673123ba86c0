import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReadGate } from '../../helpers/held-read.js';

/**
 * A colleague saves twice, in consecutive minutes, and the second save lands between a run's listing (which
 * shows the first save's minute) and its read of the document (which shows the second save's words). The soak
 * on the old main (seed 12, get-stream) said HIDDEN_EDIT 0.9 s after such a pull: the agreement was recorded
 * with the listing's minute, so the next listing's later minute, over blocks already pulled, was taken for an
 * edit reads cannot show, and the next local edit held. The interleaving is forced with a proxy: the run's read
 * waits until the second save is made.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

test("a colleague's second save between a run's listing and its read: its minute is no hidden edit, and the next local edit is published", async () => {
  await withReadGate(EPOCH, async ({ em, f, tick, holdNextRead }) => {
    await f.write('notes.md', '# Notes\n\nFirst paragraph.\n\nSecond paragraph.\n');
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Notes');
    const colleague = (from: string, to: string): void => em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Notes').markdown ?? '').replace(from, to));
    tick();
    colleague('First paragraph.', 'First paragraph, once.');

    const read = holdNextRead(doc.dentryUuid);
    tick();
    const pulling = f.sync();
    await read.reached;
    tick();
    colleague('Second paragraph.', 'Second paragraph, twice.');
    read.release();
    const pulled = await pulling;
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(await f.read('notes.md'), '# Notes\n\nFirst paragraph, once.\n\nSecond paragraph, twice.\n');

    tick();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(next.report?.results.filter((r) => r.ok && r.detail?.includes('HIDDEN_EDIT')), [], 'no hidden edit said');
    await f.write('notes.md', '# Notes\n\nFirst paragraph, once.\n\nSecond paragraph, twice.\n\nMine.\n');
    const pushed = await f.sync();
    assert.equal(pushed.code, 0, JSON.stringify(pushed.report?.results));
    assert.match(f.remoteDoc('Notes').markdown ?? '', /Mine\./);
  });
});
