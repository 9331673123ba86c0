import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, soak seed 500: a change only the shared state carries (front matter, which the document never holds),
 * published by one machine just before the other machine moved or deleted the file. An edit beats a delete: the
 * delete must bring the file back with that version, not delete the document (the front matter was then gone
 * everywhere); a move must carry it to the new document.
 */
const TEXT = '# Guide\n\nHow to start.\n\nThen carry on.\n';
const WITH_HEAD = `---\nowner: u26z\n---\n${TEXT}`;

async function moveFile(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

for (const kind of ['move', 'delete'] as const) {
  test(`front matter published by one machine, then the file ${kind === 'move' ? 'moved to another folder' : 'deleted'} on the other in the same minute: the front matter is not lost`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'guides/guide.md': TEXT, 'ref/other.md': '# Other\n\nElsewhere.\n' });

      em.admin.setClockOffset(4 * 60_000);
      await synced(b); // B reads the state's index in this minute
      await a.write('guides/guide.md', WITH_HEAD);
      const recorded = await synced(a);
      assert.ok(recorded.results.some((r) => r.path === 'guides/guide.md' && r.ok && r.result === 'recorded'), JSON.stringify(recorded.results));

      if (kind === 'move') await moveFile(b, 'guides/guide.md', 'ref/guide.md');
      else await rm(join(b.root, 'guides/guide.md'));
      await synced(b);
      em.admin.setClockOffset(7 * 60_000);
      await synced(a);
      await synced(b);
      await synced(a);

      const everywhere = [
        ...(await Promise.all([a, b].map(async (f) => [...(await Promise.all(['guides/guide.md', 'ref/guide.md'].map(async (p) => ((await f.exists(p)) ? await f.read(p) : ''))))].join('\n')))),
      ].join('\n');
      assert.match(everywhere, /u26z/, "A's front matter is somewhere: in a file of either machine");
      if (kind === 'move') {
        assert.ok(await a.exists('ref/guide.md'), 'A follows the move');
        assert.match(await a.read('ref/guide.md'), /owner: u26z/, 'with its front matter');
        assert.equal(await b.read('ref/guide.md'), await a.read('ref/guide.md'));
      }
    });
  });
}
