import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReadGate } from '../../helpers/held-read.js';

/**
 * Model seeds 4004 and 4008 (issue 44): a colleague changed a line inside a code block after a two-way run had
 * listed the document and before it read its blocks. The read cannot show code, so the blocks were as recorded; the
 * listing's time, from before the save, said nothing had changed; and the run's push of a local edit overwrote the
 * save. The save's own minute, later than the listed one, was there to be seen: a push decided on a listing must
 * ask the document's time again right before it overwrites, as a push-only run does after its read. The
 * interleaving is forced with a proxy: the run's read waits until the colleague has saved.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
const PAGE = '# Notes\n\nA paragraph.\n\n```sh\nnpm ci\n```\n';

test("a colleague's save inside code between a two-way run's listing and its read is not overwritten by the run's push", async () => {
  await withReadGate(EPOCH, async ({ em, f, tick, holdNextRead }) => {
    await f.write('notes.md', PAGE);
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Notes');
    tick();
    tick();
    await f.write('notes.md', `${PAGE}\nMine, new.\n`);

    const read = holdNextRead(doc.dentryUuid);
    const pushing = f.sync();
    await read.reached;
    // In a later minute than the one the run listed: the document's time tells this save, if asked.
    tick();
    em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Notes').markdown ?? '').replace('npm ci', 'npm ci --ignore-scripts'));
    read.release();
    const pushed = await pushing;

    assert.match(f.remoteDoc('Notes').markdown ?? '', /npm ci --ignore-scripts/, "the colleague's code line is still in the document");
    assert.equal(await f.read('notes.md'), `${PAGE}\nMine, new.\n`, 'the local edit stays in the file');
    const said = pushed.report?.results.find((r) => r.path === 'notes.md');
    assert.ok(said && (!said.ok || said.result !== 'pushed'), `not said pushed: ${JSON.stringify(said)}`);

    // Seen by its time, in this run or the next: an edit reads cannot show, held (HIDDEN_EDIT), never overwritten.
    tick();
    const next = await f.sync();
    assert.match(f.remoteDoc('Notes').markdown ?? '', /npm ci --ignore-scripts/, 'still there after the next run');
    assert.match(JSON.stringify([pushed.report?.results, next.report?.results]), /HIDDEN_EDIT/, 'the hidden edit is said');
  });
});
