import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

const keyOf = (bytes: Buffer): string => `${createHash('sha256').update(bytes).digest('hex')}.png`;

/** A replaced screenshot reaches the knowledge base from the daemon's watcher, not only at its next rescan (10 minutes by default). */
test('kbsync watch: replacing an image a note shows sends that note again with the new image URL, within the debounce', async () => {
  await withSyncFixture(async (f) => {
    const bucket = join(f.dir, 'bucket');
    await mkdir(bucket);
    const config = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(f.configPath, 'utf8'))) as Record<string, unknown>;
    const upload = `cp "$1" "${bucket}/$KBSYNC_IMAGE_KEY" && echo "http://127.0.0.1:9/$KBSYNC_IMAGE_KEY"`;
    await writeFile(f.configPath, JSON.stringify({ ...config, images: { upload }, watch: { fullSweepMinutes: 60, rescanMinutes: 60 } }));
    const first = Buffer.from('GIF89a first screenshot');
    await mkdir(join(f.root, 'img'));
    await writeFile(join(f.root, 'img/shot.png'), first);
    await f.write('howto.md', '# How to\n\n![the screen](img/shot.png)\n\nDone.\n');
    assert.equal((await f.sync()).code, 0);
    assert.ok((f.remoteDoc('How to').markdown ?? '').includes(keyOf(first)));

    const d = startDaemon(f);
    try {
      await d.waitForLog(firstSweepDone, 'the first full cycle');
      const second = Buffer.from('GIF89a second screenshot, retaken');
      await writeFile(join(f.root, 'img/shot.png'), second);
      await waitUntil(() => (f.remoteDoc('How to').markdown ?? '').includes(keyOf(second)), 'the note to show the new image', 30_000);
      assert.ok(!(f.remoteDoc('How to').markdown ?? '').includes(keyOf(first)));
    } finally {
      await d.dispose();
    }
  });
});
