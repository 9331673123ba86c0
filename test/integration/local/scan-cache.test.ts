import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { ScanCache, scanLocal, type LocalScanner } from '../../../src/local/index.js';
import { tempDir, writeTree } from './temp.js';

/** A cache whose full walks are counted, so a test can tell a re-stat from a walk. */
function countedCache(): { cache: ScanCache; walks: () => number; hinted: LocalScanner } {
  const cache = new ScanCache();
  let walks = 0;
  const full = cache.full;
  Object.defineProperty(cache, 'full', { value: async (...args: Parameters<LocalScanner>) => (walks++, full(...args)) });
  return { cache, walks: () => walks, hinted: (root, options) => cache.hinted(root, options) };
}

describe('ScanCache', () => {
  test('a hinted edit of a listed file is re-stat\'ed without a walk, and reads as a full scan would', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': 'A', 'sub/b.md': 'BB' });
    const { cache, walks, hinted } = countedCache();
    await hinted(root, {});
    assert.equal(walks(), 1, 'the first scan walks');
    await fsp.writeFile(path.join(root, 'sub/b.md'), 'BBB, longer now');
    cache.hint(['sub/b.md']);
    const scan = await hinted(root, {});
    assert.equal(walks(), 1, 'a hinted edit is re-stat\'ed, not walked');
    assert.deepEqual(scan, await scanLocal(root, {}));
  });

  test('a changed image (no synced file) needs no walk: the cycle finds the documents showing it by their recorded images', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': '![x](img/x.png)', 'img/x.png': 'png' });
    const { cache, walks, hinted } = countedCache();
    await hinted(root, {});
    await fsp.writeFile(path.join(root, 'img/x.png'), 'another png');
    cache.hint(['img/x.png']);
    assert.deepEqual(await hinted(root, {}), await scanLocal(root, {}));
    assert.equal(walks(), 1, 'not walked');
    await fsp.writeFile(path.join(root, 'img/y.txt'), 'not an image');
    cache.hint(['img/y.txt']);
    await hinted(root, {});
    assert.equal(walks(), 2, 'any other unlisted file still walks');
  });

  test('walks again for anything a hint cannot vouch for', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': 'A', 'sub/b.md': 'BB' });
    const { cache, walks, hinted } = countedCache();
    await hinted(root, {});
    const cases: Array<[string, () => Promise<void>, string[]]> = [
      ['a new file', () => fsp.writeFile(path.join(root, 'sub/c.md'), 'C'), ['sub/c.md']],
      ['a deleted file', () => fsp.rm(path.join(root, 'a.md')), ['a.md']],
      ['a new folder', () => fsp.mkdir(path.join(root, 'new')), ['new']],
      ['a file replaced by a folder', async () => (await fsp.rm(path.join(root, 'sub/c.md')), await fsp.mkdir(path.join(root, 'sub/c.md'))), ['sub/c.md']],
    ];
    let expected = walks();
    for (const [what, change, hints] of cases) {
      await change();
      cache.hint(hints);
      const scan = await hinted(root, {});
      assert.equal(walks(), ++expected, `${what} is walked`);
      assert.deepEqual(scan, await scanLocal(root, {}), what);
    }
    cache.invalidate();
    await hinted(root, {});
    assert.equal(walks(), ++expected, 'after invalidate() (a failed cycle, the rescan timer) it walks');
    await hinted(root, { exclude: ['sub/**'] });
    assert.equal(walks(), ++expected, 'other scan options walk');
  });
});
