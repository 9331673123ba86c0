import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReadGate } from '../../helpers/held-read.js';

/**
 * Found by the soak replay of seed 711 (keyed) on this branch: B followed A's rename of a file (move-local), and the
 * check that reads the moved file at its new path in the same run rewrote it with a change of the document. The
 * person's edit of the file, made after that check read it and before its write, was overwritten with no
 * FILE_CHANGED: the write's expected fingerprint for a path the scan never saw is taken when it writes
 * (act/local-files.ts fingerprintOf), not when the file was read. The backup holds the text read, without the edit.
 * Here the move is a colleague's in the web editor, with a word edit, and the person's edit lands while the
 * check's read of the document waits at a proxy.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
const TEXT = '# Notes\n\nFirst paragraph.\n\nSecond paragraph.\n';

test("an edit of a file made while the check after its move reads the document is kept, not overwritten by that check's pull", async () => {
  await withReadGate(EPOCH, async ({ em, f, tick, holdNextRead }) => {
    await f.write('a/notes.md', TEXT);
    await f.write('b/other.md', '# Other\n\nThe folder the colleague moves the page into.\n');
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Notes');
    const folder = em.admin.dump().nodes.find((node) => node.docType === 'FOLDER' && node.title === 'b');
    assert.ok(folder);
    tick();
    em.admin.moveNode(doc.dentryUuid, folder.dentryUuid);
    em.admin.editDocument(doc.dentryUuid, TEXT.replace('Second paragraph.', 'Second paragraph, theirs.'));
    tick();
    const read = holdNextRead(doc.dentryUuid);
    const running = f.sync();
    await read.reached;
    assert.equal(await f.read('b/notes.md'), TEXT, 'the file was moved before the check read the document');
    await f.write('b/notes.md', TEXT.replace('First paragraph.', 'First paragraph, mine.'));
    read.release();
    await running;
    assert.match(await f.read('b/notes.md'), /First paragraph, mine\./, "the person's edit is still in the file");
    const next = await f.sync();
    assert.match(await f.read('b/notes.md'), /First paragraph, mine\./, 'and after the next run');
    assert.match(f.remoteDoc('Notes').markdown ?? '', /First paragraph, mine\./, 'and in the knowledge base');
    assert.equal(next.code, 0, JSON.stringify(next.report?.results));
  });
});
