import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { scanLocal, type ScanFs } from '../../../src/local/index.js';
import { KbsyncError } from '../../../src/errors.js';
import { isRoot, tempDir, writeTree } from './temp.js';

const paths = (files: ReadonlyArray<{ path: string }>): string[] => files.map((file) => file.path);

describe('scanLocal', () => {
  test('lists Markdown files with their lstat fingerprint, and the folders seen', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': 'A', 'sub/b.md': 'BB', 'sub/deeper/c.md': 'CCC', 'sub/notes.txt': 'x', 'empty/.keep': '' });
    const scan = await scanLocal(root);
    assert.equal(scan.complete, true);
    assert.deepEqual(paths(scan.files), ['a.md', 'sub/b.md', 'sub/deeper/c.md']);
    assert.deepEqual(scan.folders, ['empty', 'sub', 'sub/deeper']);
    const stat = await fsp.lstat(path.join(root, 'sub/b.md'));
    const b = scan.files[1];
    assert.deepEqual(b, { path: 'sub/b.md', key: 'sub/b.md', size: 2, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev });
    const rootStat = await fsp.stat(root);
    assert.equal(scan.rootIno, rootStat.ino);
  });

  test('skips .git, node_modules, the state folder, editor temp files and its own temp files', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, {
      'keep.md': '',
      '.git/x.md': '',
      'pkg/node_modules/dep/readme.md': '',
      '.kbsync/backups/x.md': '',
      'custom-state/y.md': '',
      '.#keep.md': '',
      'keep.md~': '',
      '.keep.md.swp': '',
      'keep.md.tmp': '',
      '4913': '',
      '.~lock.keep.md#': '',
      'dl.md.crdownload': '',
      '.DS_Store': '',
      '.kbsync-tmp-abc123': '',
    });
    const scan = await scanLocal(root, { stateDir: 'custom-state' });
    assert.deepEqual(paths(scan.files), ['keep.md']);
    assert.deepEqual(scan.folders, ['pkg']);
  });

  test('honours include/exclude globs and .kbsyncignore files at the root and in subfolders', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, {
      '.kbsyncignore': 'private/\n*.draft.md\n',
      'a.md': '',
      'a.draft.md': '',
      'private/secret.md': '',
      'docs/.kbsyncignore': '!keep.draft.md\nlocal-only.md\n',
      'docs/keep.draft.md': '',
      'docs/local-only.md': '',
      'docs/guide.md': '',
      'drafts/wip.md': '',
      'notes/x.markdown': '',
    });
    const scan = await scanLocal(root, { include: ['**/*.md', '**/*.markdown'], exclude: ['drafts/**'] });
    assert.deepEqual(paths(scan.files), ['a.md', 'docs/guide.md', 'docs/keep.draft.md', 'notes/x.markdown']);
    assert.deepEqual(scan.folders, ['docs', 'notes']);
  });

  test('reports conflict copies apart from the files to sync', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'plan.md': '', 'plan.conflict-20240501-120000.md': '' });
    const scan = await scanLocal(root);
    assert.deepEqual(paths(scan.files), ['plan.md']);
    assert.deepEqual(paths(scan.conflictCopies), ['plan.conflict-20240501-120000.md']);
  });

  test('never follows symlinks: loops, links out of the root and links to files inside are skipped with a reason', async (t) => {
    const root = await tempDir(t);
    const outside = await tempDir(t);
    await writeTree(outside, { 'secret.md': 'outside' });
    await writeTree(root, { 'real.md': 'inside', 'dir/x.md': '' });
    await fsp.symlink(root, path.join(root, 'loop'));
    await fsp.symlink('..', path.join(root, 'dir', 'up'));
    await fsp.symlink(path.join(outside, 'secret.md'), path.join(root, 'out.md'));
    await fsp.symlink(outside, path.join(root, 'outdir'));
    await fsp.symlink('real.md', path.join(root, 'alias.md'));
    await fsp.symlink('missing.md', path.join(root, 'dangling.md'));
    await fsp.symlink('self.md', path.join(root, 'self.md'));
    await fsp.symlink('real.md', path.join(root, 'alias.txt')); // not Markdown: not even reported
    const scan = await scanLocal(root);
    assert.equal(scan.complete, true);
    assert.deepEqual(paths(scan.files), ['dir/x.md', 'real.md']);
    const reasons = Object.fromEntries(scan.skipped.map((skip) => [skip.path, skip.reason]));
    assert.deepEqual(Object.keys(reasons).sort(), ['alias.md', 'dangling.md', 'dir/up', 'loop', 'out.md', 'outdir', 'self.md']);
    assert.match(reasons['alias.md'] ?? '', /symlink to a file inside the sync folder/);
    assert.match(reasons['out.md'] ?? '', /outside the sync folder/);
    assert.match(reasons['loop'] ?? '', /symlinked folder/);
    assert.match(reasons['dangling.md'] ?? '', /broken symlink/);
    assert.match(reasons['self.md'] ?? '', /loop/);
  });

  test('an unreadable folder makes the scan incomplete, names the folder, and keeps the rest', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': '', 'locked/b.md': '', 'open/c.md': '' });
    const fs: ScanFs = {
      readdir: async (dir) => {
        if (dir.endsWith(`${path.sep}locked`)) throw Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' });
        return fsp.readdir(dir, { withFileTypes: true });
      },
      lstat: (file) => fsp.lstat(file),
      readFile: (file) => fsp.readFile(file, 'utf8'),
    };
    const scan = await scanLocal(root, { fs });
    assert.equal(scan.complete, false);
    assert.deepEqual(scan.problems.map((p) => [p.path, p.code]), [['locked', 'PERMISSION_DENIED']]);
    assert.match(scan.problems[0]?.reason ?? '', /cannot read folder/);
    assert.deepEqual(paths(scan.files), ['a.md', 'open/c.md']);
  });

  test('a file whose lstat fails (in the walk loop or through a promise) is a problem; one gone meanwhile is not', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': '', 'bad.md': '', 'gone.md': '' });
    const fail = (file: string): void => {
      if (file.endsWith('bad.md')) throw Object.assign(new Error(`EIO: i/o error, lstat '${file}'`), { code: 'EIO' });
      if (file.endsWith('gone.md')) throw Object.assign(new Error(`ENOENT: no such file, lstat '${file}'`), { code: 'ENOENT' });
    };
    const base = { readdir: (dir: string) => fsp.readdir(dir, { withFileTypes: true }), readFile: (file: string) => fsp.readFile(file, 'utf8') };
    const inLoop: ScanFs = { ...base, lstat: () => Promise.reject(new Error('the walk must use lstatSync')), lstatSync: (file) => (fail(file), lstatSync(file)) };
    const promised: ScanFs = { ...base, lstat: async (file) => (fail(file), fsp.lstat(file)) };
    for (const fs of [inLoop, promised]) {
      const scan = await scanLocal(root, { fs });
      assert.equal(scan.complete, false);
      assert.deepEqual(scan.problems.map((p) => [p.path, p.code]), [['bad.md', 'FILE_UNREADABLE']]);
      assert.deepEqual(paths(scan.files), ['a.md']);
    }
  });

  test('a real chmod 000 folder is reported, not taken as empty', { skip: isRoot ? 'root reads every folder' : false }, async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': '', 'locked/b.md': '' });
    await fsp.chmod(path.join(root, 'locked'), 0o000);
    t.after(() => fsp.chmod(path.join(root, 'locked'), 0o755));
    const scan = await scanLocal(root);
    assert.equal(scan.complete, false);
    assert.deepEqual(scan.problems.map((p) => p.path), ['locked']);
  });

  test('an unreadable .kbsyncignore leaves its folder out and makes the scan incomplete', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': '', 'team/.kbsyncignore': 'secret.md\n', 'team/secret.md': '' });
    const fs: ScanFs = {
      readdir: (dir) => fsp.readdir(dir, { withFileTypes: true }),
      lstat: (file) => fsp.lstat(file),
      readFile: async (file) => {
        if (file.includes('team')) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        return fsp.readFile(file, 'utf8');
      },
    };
    const scan = await scanLocal(root, { fs });
    assert.equal(scan.complete, false);
    assert.deepEqual(paths(scan.files), ['a.md']);
    assert.deepEqual(scan.problems.map((p) => p.path), ['team/.kbsyncignore']);
  });

  test('keeps the on-disk name of an NFD file and compares it in NFC; an NFC/NFD twin is reported', async (t) => {
    const root = await tempDir(t);
    const nfd = 'Cafe\u0301.md';
    await writeTree(root, { [nfd]: 'decomposed', 'sub/Re\u0301sume\u0301/x.md': '' });
    const scan = await scanLocal(root);
    assert.deepEqual(scan.files.map((f) => [f.path, f.key]), [
      [nfd, 'Café.md'],
      ['sub/Re\u0301sume\u0301/x.md', 'sub/Résumé/x.md'],
    ]);
    await writeTree(root, { 'Café.md': 'composed' });
    const twins = await scanLocal(root);
    assert.equal(twins.files.filter((f) => f.key === 'Café.md').length, 1);
    assert.equal(twins.skipped.length, 1);
    assert.match(twins.skipped[0]?.reason ?? '', /Unicode normalisation/);
  });

  test('a missing or non-folder root is an error, never an empty folder', async (t) => {
    const parent = await tempDir(t);
    await assert.rejects(scanLocal(path.join(parent, 'unmounted')), (error: unknown) => {
      assert.ok(error instanceof KbsyncError);
      assert.equal(error.code, 'ROOT_MISSING');
      assert.match(error.message, /unmounted/);
      return true;
    });
    await writeTree(parent, { 'file.md': '' });
    await assert.rejects(scanLocal(path.join(parent, 'file.md')), { code: 'ROOT_MISSING' });
  });

  test('a 10,000-file tree is scanned completely', async (t) => {
    const root = await tempDir(t);
    for (let folder = 0; folder < 40; folder += 1) {
      const dir = path.join(root, `f${folder}`, 'sub');
      await fsp.mkdir(dir, { recursive: true });
      await Promise.all(Array.from({ length: 250 }, (_, i) => fsp.writeFile(path.join(dir, `n${i}.md`), '')));
    }
    const scan = await scanLocal(root);
    assert.equal(scan.complete, true);
    assert.equal(scan.files.length, 10_000);
    assert.equal(new Set(scan.files.map((f) => f.ino)).size, 10_000);
    assert.equal(scan.folders.length, 80);
  });
});
