import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { createCaseFixture, OutputLog, snapshotTree, type CaseFixture } from '../../helpers/bad-input.js';
import { filesBelow } from '../../helpers/secret-scan.js';

/** Titles meant to climb out of the root, or to land on names that mean something to a file system or shell. */
const HOSTILE_TITLES = ['..', '../../.bashrc', '../outside/victim', '/etc/passwd', 'a\\..\\..\\b', '.', '~', '$HOME', 'nul\u0000byte', 'CON', 'aux.md', 'trail. ', '.hidden', '.kbsync'];

/** Walks up from every path kbsync may have written and checks it is really inside the root. */
async function assertAllInside(root: string): Promise<void> {
  const realRoot = await realpath(root);
  for (const rel of await filesBelow(root)) {
    const real = await realpath(join(root, rel));
    assert.ok(real.startsWith(`${realRoot}/`), `${rel} resolves to ${real}, outside the root`);
  }
}

async function plant(f: CaseFixture): Promise<void> {
  // Outside the root, beside it: what a symlink inside points at.
  await mkdir(join(f.dir, 'outside'));
  await writeFile(join(f.dir, 'outside', 'victim.md'), '# Victim\n\nOutside the root; must never change.\n');
  await symlink('../outside', join(f.root, 'linked'));
  await mkdir(join(f.root, 'sub'));
  await symlink('../../outside', join(f.root, 'sub', 'deeper'));
  await symlink('../outside/victim.md', join(f.root, 'victim.md'));

  // Remote: folders and documents named like those links, a folder titled `..`, and every hostile title.
  const linked = f.remoteCreate('linked', undefined, { folder: true });
  f.remoteCreate('Planted', '# Planted\n\nWould land in outside/.\n', { parent: linked });
  f.remoteCreate('victim', '# Victim\n\nWould overwrite the symlink target.\n', { parent: linked });
  const sub = f.remoteCreate('sub', undefined, { folder: true });
  const deeper = f.remoteCreate('deeper', undefined, { folder: true, parent: sub });
  f.remoteCreate('Deep', '# Deep\n\nTwo levels through a link.\n', { parent: deeper });
  f.remoteCreate('victim', '# Victim\n\nSame name as the file symlink.\n');
  const up = f.remoteCreate('..', undefined, { folder: true });
  f.remoteCreate('Up', '# Up\n\nIn a folder titled "..".\n', { parent: up });
  const upUp = f.remoteCreate('..', undefined, { folder: true, parent: up });
  f.remoteCreate('Up up', '# Up up\n\nTwo folders titled "..".\n', { parent: upUp });
  for (const title of HOSTILE_TITLES) f.remoteCreate(title, `Body of "${title.replace(/\0/g, '')}".\n`);
}

describe('nothing is ever written outside the root', () => {
  test('hostile titles, folders titled "..", and symlinks inside the root pointing out', async () => {
    const em = await startEmulator({ rateLimit: 0 });
    const f = await createCaseFixture(em, new OutputLog());
    try {
      await plant(f);
      const outsideBefore = await snapshotTree(f.dir, (rel) => rel === 'notes');
      const tmpBefore = new Set(await readdir(tmpdir()));

      for (const args of [[], [], ['--pull'], ['--force']]) {
        const run = await f.sync(args);
        assert.ok(run.code === 0 || run.code === 1, `${run.stdout}\n${run.stderr}`);
      }

      assert.deepEqual(await snapshotTree(f.dir, (rel) => rel === 'notes'), outsideBefore, 'the folder beside the root changed');
      const appeared = (await readdir(tmpdir())).filter((name) => !tmpBefore.has(name));
      for (const name of ['.bashrc', 'victim.md', 'b', 'outside', 'passwd']) assert.ok(!appeared.includes(name), `${name} appeared in ${tmpdir()}`);
      for (const link of ['linked', 'sub/deeper', 'victim.md']) assert.ok((await lstat(join(f.root, link))).isSymbolicLink(), `${link} is still the user's symlink`);
      await assertAllInside(f.root);
      // Every hostile title did arrive, as a file inside the root.
      const files = await filesBelow(f.root);
      const pulled = files.filter((rel) => !rel.startsWith('.kbsync/'));
      assert.ok(pulled.length >= HOSTILE_TITLES.length + 2, pulled.join('\n'));
    } finally {
      await f.close();
      await em.close();
    }
  });
});
