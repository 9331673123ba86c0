import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstat, rename, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pushInProcess as push, plannedLines as planned } from '../../helpers/in-process-sync.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A push that lists nothing plans only the files whose ledger rows it must look at (decide/settled.ts): these
 * check that whatever changed among many unchanged files is still seen and planned exactly as before.
 */
const FILES = 600;
const pathOf = (i: number): string => `area-${i % 3}/topic-${i % 5}/note-${String(i).padStart(4, '0')}.md`;
const textOf = (i: number): string => `# Note ${i}\n\nSome text for note ${i}.\n`;
/** The first push creates 600 documents: paced at the real service's 20 calls a second, that alone took 30 s. */
const UNPACED = { env: { KBSYNC_SERVICE_RATE_LIMIT: '1000' } };

describe('a push among many unchanged files', () => {
  test('a no-op plans nothing; an edit, a same-size same-mtime replacement (new inode) and a new file are planned as before', async () => {
    await withSyncFixture(async (f) => {
      for (let i = 0; i < FILES; i++) await f.write(pathOf(i), textOf(i));
      const first = await push(f);
      assert.equal(first.counts['pushed'], FILES);

      // A whole-second mtime, which utimes sets exactly, for the replacement below to copy.
      const replaced = join(f.root, pathOf(11));
      const second = new Date('2026-01-02T03:04:05Z');
      await utimes(replaced, second, second);
      const noop = await push(f);
      assert.deepEqual(planned(noop), []);
      assert.equal(noop.calls, 0);

      // An edit of the same size: only its mtime and bytes differ.
      await f.write(pathOf(7), textOf(7).replace('Some', 'Same'));
      // Replaced by another file (an editor's atomic save) with the same size and the old mtime: only the inode tells.
      const before = await lstat(replaced);
      await writeFile(`${replaced}.tmp`, textOf(11).replace('text', 'TEXT'));
      await rename(`${replaced}.tmp`, replaced);
      await utimes(replaced, second, second);
      const after = await lstat(replaced);
      assert.equal(after.size, before.size);
      assert.equal(after.mtimeMs, before.mtimeMs);
      assert.notEqual(after.ino, before.ino);

      const preview = await push(f, true);
      assert.deepEqual(planned(preview), [`push ${pathOf(7)}`, `push ${pathOf(11)}`]);
      const run = await push(f);
      assert.deepEqual(planned(run), planned(preview));
      assert.equal(run.counts['pushed'], 2);
      assert.match(f.remoteDocs().find((d) => d.title === 'Note 11')?.markdown ?? '', /TEXT/);

      // The same bytes under a new inode: read, found unchanged, its new stat recorded (no call), then settled again.
      const touched = join(f.root, pathOf(12));
      await writeFile(`${touched}.tmp`, textOf(12));
      await rename(`${touched}.tmp`, touched);
      const restat = await push(f);
      assert.deepEqual(planned(restat), []);
      assert.equal(restat.calls, 0);

      // A new file: the run lists the service to look for its twin, and creates its document.
      await f.write('area-0/fresh.md', '# Fresh\n\nNew.\n');
      const created = await push(f);
      assert.deepEqual(planned(created), ['create area-0/fresh.md']);
      assert.equal((await push(f)).calls, 0);
    }, UNPACED);
  });

  // A push lists nothing, so it learns of a colleague's delete only from its read: gone may be deleted or replaced
  // by another writer's move, which only a listing tells (a re-create then is a duplicate, model seed 230005). So it
  // reports the failure once and the next push lists (found by the status/preview property test: it failed every run).
  test('an edited file whose document a colleague deleted: the push says it is gone, and the next push lists and re-creates it', async () => {
    await withSyncFixture(async (f) => {
      await f.write('guide.md', '# Guide\n\nFirst words.\n');
      assert.equal((await push(f)).counts['pushed'], 1);
      const gone = f.remoteDoc('Guide');
      f.em.admin.deleteNode(gone.dentryUuid);
      await f.write('guide.md', '# Guide\n\nFirst words, edited.\n');

      const failed = await push(f);
      assert.deepEqual(failed.results.map((r) => `${r.path} ${r.ok ? 'ok' : r.code}`), ['guide.md API_NOT_FOUND']);
      assert.match(failed.results[0] && !failed.results[0].ok ? failed.results[0].error : '', /gone from the knowledge base: deleted there, or replaced .* the next one lists the knowledge base/);
      const preview = await push(f, true);
      assert.deepEqual(planned(preview), ['recreate guide.md'], 'the next push lists, and says so in its preview');
      const run = await push(f);
      assert.equal(run.failed, 0, JSON.stringify(run.results));
      assert.deepEqual(planned(run), ['recreate guide.md']);
      const made = f.remoteDoc('Guide');
      assert.notEqual(made.dentryUuid, gone.dentryUuid);
      assert.equal(made.markdown, '# Guide\n\nFirst words, edited.\n');
      const steady = await push(f);
      assert.deepEqual(planned(steady), []);
      assert.equal(steady.calls, 0, 'listed once: then the push lists nothing again');
    });
  });
});
