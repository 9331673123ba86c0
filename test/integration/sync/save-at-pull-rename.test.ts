import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { withReadGate } from '../../helpers/held-read.js';
import { syncOnce } from '../../helpers/in-process-sync.js';

/**
 * Soak seed 715 (issue 44): machine A's daemon pulled a colleague's edit into a file, and the user formatted a word
 * in it 1.4 s after the pull read it. The write's checks (before and after flushing the new text) passed, but its
 * rename was queued behind the process's other file work on a loaded machine, and the save in place landed before
 * it: the pulled text replaced the formatted word unseen, on every side. Forced here: the save is made as the run
 * renames its new text over the file.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
const PAGE = '# Notes\n\nFirst paragraph.\n\nSecond paragraph.\n';

test("a save that lands as a pull renames its text over the file is kept, and the next run merges it with the colleague's edit", async (t) => {
  await withReadGate(EPOCH, async ({ em, f, tick }) => {
    await f.write('notes.md', PAGE);
    assert.equal((await syncOnce(f)).code, 0);
    const doc = f.remoteDoc('Notes');
    tick();
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('First paragraph.', 'First paragraph, theirs.'));
    tick();

    const file = join(f.root, 'notes.md');
    const rename = fsp.rename;
    let saved = false;
    t.mock.method(fsp, 'rename', async (from: string, to: string) => {
      if (to === file && basename(from).startsWith('.kbsync-tmp-') && !saved) {
        saved = true;
        await fsp.writeFile(file, PAGE.replace('Second paragraph.', 'Second **paragraph**, mine.'));
      }
      return rename(from, to);
    });
    const pull = await syncOnce(f);
    assert.ok(saved, 'the save landed at the rename');
    assert.deepEqual(
      pull.report?.results.filter((r) => !r.ok).map((r) => [r.path, r.code]),
      [['notes.md', 'FILE_CHANGED']],
      'the pull is refused: the file changed',
    );
    assert.equal(await f.read('notes.md'), PAGE.replace('Second paragraph.', 'Second **paragraph**, mine.'), 'the save is kept');
    t.mock.restoreAll();

    const merged = await syncOnce(f);
    assert.equal(merged.code, 0, JSON.stringify(merged.report?.results));
    const both = '# Notes\n\nFirst paragraph, theirs.\n\nSecond **paragraph**, mine.\n';
    assert.equal(await f.read('notes.md'), both);
    assert.equal(f.remoteDoc('Notes').markdown, both, 'the formatted word reached the knowledge base');
  });
});
