import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import {
  backupText,
  ensureParentFolders,
  hashFile,
  hashText,
  moveToTrash,
  readTextFile,
  safeRelativePath,
  sameFingerprint,
  statFingerprint,
  writeFileAtomic,
} from '../../../src/local/index.js';
import { tempDir, writeTree } from './temp.js';

describe('readTextFile', () => {
  test('reads text, strips a BOM, keeps line endings exactly (CRLF is remembered only when every line has it)', async (t) => {
    const root = await tempDir(t);
    await fsp.writeFile(path.join(root, 'win.md'), '\uFEFF# Title\r\nline\r\n');
    assert.deepEqual(await readTextFile(path.join(root, 'win.md')), { text: '# Title\r\nline\r\n', bom: true, eol: 'crlf' });
    await fsp.writeFile(path.join(root, 'mixed.md'), '# Title\r\nline\n');
    assert.deepEqual(await readTextFile(path.join(root, 'mixed.md')), { text: '# Title\r\nline\n', bom: false, eol: 'lf' });
  });

  test('refuses non-UTF-8, NUL bytes and oversized files with their codes and the path', async (t) => {
    const root = await tempDir(t);
    await fsp.writeFile(path.join(root, 'latin1.md'), Buffer.from('caf\xe9', 'latin1'));
    await fsp.writeFile(path.join(root, 'binary.md'), Buffer.from([0x23, 0x20, 0x00, 0x01]));
    await fsp.writeFile(path.join(root, 'long.md'), 'x'.repeat(60_000));
    await assert.rejects(readTextFile(path.join(root, 'latin1.md'), { displayPath: 'latin1.md' }), { code: 'FILE_NOT_UTF8', message: /latin1\.md is not valid UTF-8/ });
    await assert.rejects(readTextFile(path.join(root, 'binary.md')), { code: 'FILE_HAS_NUL' });
    await assert.rejects(readTextFile(path.join(root, 'long.md')), { code: 'FILE_TOO_LARGE', message: /60000 characters/ });
  });

  test('a file over the byte limit is refused from its size, before it is read', async (t) => {
    const root = await tempDir(t);
    const huge = path.join(root, 'huge.md');
    // Sparse: 5 MB on paper. Reading it would yield NUL bytes, so only the size check can say "too large".
    const handle = await fsp.open(huge, 'w');
    await handle.truncate(5 * 1024 * 1024);
    await handle.close();
    await assert.rejects(readTextFile(huge), { code: 'FILE_TOO_LARGE', message: /5242880 bytes on disk/ });
  });

  test('refuses to read through a symlink', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'real.md': 'x' });
    await fsp.symlink('real.md', path.join(root, 'link.md'));
    await assert.rejects(readTextFile(path.join(root, 'link.md')), { code: 'FILE_NOT_REGULAR' });
  });

  test('hashFile hashes the bytes on disk; hashText of the same text agrees', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': 'héllo\n' });
    assert.equal(await hashFile(path.join(root, 'a.md')), hashText('héllo\n'));
  });
});

describe('writeFileAtomic', () => {
  test('writes through a temp file, creates folders, returns the fingerprint a fresh stat sees', async (t) => {
    const root = await tempDir(t);
    const fingerprint = await writeFileAtomic(root, 'new/deep/a.md', 'hello\n');
    const abs = path.join(root, 'new/deep/a.md');
    assert.equal(await fsp.readFile(abs, 'utf8'), 'hello\n');
    assert.ok(sameFingerprint(fingerprint, statFingerprint(await fsp.lstat(abs))));
    assert.deepEqual(fingerprint, statFingerprint(await fsp.lstat(abs)));
    assert.deepEqual(await fsp.readdir(path.join(root, 'new/deep')), ['a.md'], 'no temp file left behind');
    assert.equal((await fsp.stat(path.join(root, 'new'))).mode & 0o777, 0o755);
  });

  test('keeps line endings, BOM and the replaced file mode', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'a.md': 'old' });
    await fsp.chmod(path.join(root, 'a.md'), 0o640);
    await writeFileAtomic(root, 'a.md', 'one\ntwo\n', { eol: 'crlf', bom: true });
    assert.deepEqual(await fsp.readFile(path.join(root, 'a.md')), Buffer.from('\uFEFFone\r\ntwo\r\n'));
    assert.equal((await fsp.stat(path.join(root, 'a.md'))).mode & 0o777, 0o640);
    await writeFileAtomic(root, 'b.md', 'x', { mode: 0o600 });
    assert.equal((await fsp.stat(path.join(root, 'b.md'))).mode & 0o777, 0o600);
  });

  test('refuses a symlinked parent folder, a symlinked target and paths escaping the root', async (t) => {
    const root = await tempDir(t);
    const outside = await tempDir(t);
    await fsp.symlink(outside, path.join(root, 'linked'));
    await writeTree(outside, { 'target.md': 'outside' });
    await fsp.symlink(path.join(outside, 'target.md'), path.join(root, 'file-link.md'));
    for (const rel of ['linked/a.md', 'linked/new/a.md', 'file-link.md', '../escape.md', 'a/../../escape.md', '/etc/passwd', 'a\\b.md', '', 'a//b.md', './a.md']) {
      await assert.rejects(writeFileAtomic(root, rel, 'x'), { code: 'UNSAFE_PATH' }, rel);
    }
    assert.deepEqual(await fsp.readdir(outside), ['target.md']);
    assert.equal(await fsp.readFile(path.join(outside, 'target.md'), 'utf8'), 'outside');
    assert.throws(() => safeRelativePath(root, 'x/../..'), { code: 'UNSAFE_PATH' });
    await assert.rejects(ensureParentFolders(root, 'linked/deeper/x.md', { create: true }), { code: 'UNSAFE_PATH' });
  });

  test('checks the expected state before replacing (design rule 3)', async (t) => {
    const root = await tempDir(t);
    const first = await writeFileAtomic(root, 'a.md', 'v1', { expect: 'absent' });
    await assert.rejects(writeFileAtomic(root, 'a.md', 'v2', { expect: 'absent' }), { code: 'FILE_CHANGED' });
    const second = await writeFileAtomic(root, 'a.md', 'v2', { expect: first });
    assert.ok(!sameFingerprint(first, second), 'a new inode');
    await assert.rejects(writeFileAtomic(root, 'a.md', 'v3', { expect: first }), { code: 'FILE_CHANGED', message: /left untouched/ });
    assert.equal(await fsp.readFile(path.join(root, 'a.md'), 'utf8'), 'v2');
  });

  test('a save that lands while the new text is flushed is kept: the expectation is checked again right before the rename', async (t) => {
    const root = await tempDir(t);
    const expect = await writeFileAtomic(root, 'a.md', 'as read\n');
    // The gate: the user's editor saves in place while kbsync flushes its temp file (seconds on a loaded disk;
    // the soak lost a paragraph a user typed there, seed 12 new main: the rename put the pulled text over it).
    const probe = await fsp.open(path.join(root, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
    await probe.close();
    const flush = handles.sync;
    t.mock.method(handles, 'sync', async function (this: unknown) {
      t.mock.restoreAll();
      await fsp.appendFile(path.join(root, 'a.md'), 'typed meanwhile\n');
      return flush.call(this);
    });
    await assert.rejects(writeFileAtomic(root, 'a.md', 'pulled\n', { expect }), { code: 'FILE_CHANGED' });
    assert.equal(await fsp.readFile(path.join(root, 'a.md'), 'utf8'), 'as read\ntyped meanwhile\n');
    assert.deepEqual((await fsp.readdir(root)).filter((name) => name !== 'a.md' && name !== 'probe'), [], 'no temp file left');
  });

  test('a save that lands between the last check and the rename is put back and the write refused (soak seed 715)', async (t) => {
    const root = await tempDir(t);
    const expect = await writeFileAtomic(root, 'a.md', 'as read\n');
    // The gate: the rename was queued behind other file work on a loaded machine, and the user's editor saved in
    // place after the check, before the rename (the soak lost a formatted word so, seed 715).
    const rename = fsp.rename;
    let saved = false;
    t.mock.method(fsp, 'rename', async (from: string, to: string) => {
      if (to === path.join(root, 'a.md') && path.basename(from).startsWith('.kbsync-tmp-') && !saved) {
        saved = true;
        await fsp.appendFile(to, 'typed meanwhile\n');
      }
      return rename(from, to);
    });
    await assert.rejects(writeFileAtomic(root, 'a.md', 'pulled\n', { expect }), { code: 'FILE_CHANGED', message: /it was edited/ });
    assert.ok(saved, 'the save landed at the rename');
    assert.equal(await fsp.readFile(path.join(root, 'a.md'), 'utf8'), 'as read\ntyped meanwhile\n');
    assert.deepEqual(await fsp.readdir(root), ['a.md'], 'no temp file or second name left');
    // The file as saved is the one written over next time.
    const again = await writeFileAtomic(root, 'a.md', 'merged\n', { expect: statFingerprint(await fsp.lstat(path.join(root, 'a.md'))) });
    assert.equal(await fsp.readFile(path.join(root, 'a.md'), 'utf8'), 'merged\n');
    assert.deepEqual(await fsp.readdir(root), ['a.md']);
    assert.ok(!sameFingerprint(again, expect));
  });

  test('a file system without hard links gets the checked rename: the write is made, nothing left beside it', async (t) => {
    const root = await tempDir(t);
    const expect = await writeFileAtomic(root, 'a.md', 'as read\n');
    t.mock.method(fsp, 'link', () => Promise.reject(Object.assign(new Error('operation not permitted'), { code: 'EPERM' })));
    await writeFileAtomic(root, 'a.md', 'pulled\n', { expect });
    assert.equal(await fsp.readFile(path.join(root, 'a.md'), 'utf8'), 'pulled\n');
    await assert.rejects(writeFileAtomic(root, 'a.md', 'again\n', { expect }), { code: 'FILE_CHANGED' });
    assert.deepEqual(await fsp.readdir(root), ['a.md']);
  });

  test('a missing root is ROOT_MISSING, a file in the way of a folder is PATH_NOT_FOLDER', async (t) => {
    const root = await tempDir(t);
    await assert.rejects(writeFileAtomic(path.join(root, 'gone'), 'a.md', 'x'), { code: 'ROOT_MISSING' });
    await writeTree(root, { blocker: '' });
    await assert.rejects(writeFileAtomic(root, 'blocker/a.md', 'x'), { code: 'PATH_NOT_FOLDER' });
  });
});

describe('moveToTrash and backupText', () => {
  test('moveToTrash keeps the file under trash/<timestamp>/<path> and refuses a changed file', async (t) => {
    const root = await tempDir(t);
    const trash = path.join(root, '.kbsync', 'trash');
    await writeTree(root, { 'dir/a.md': 'keep me', 'b.md': 'b' });
    // Without its state folder (the sync folder vanished and came back empty?) nothing is moved or made.
    await assert.rejects(moveToTrash(root, 'b.md', trash), { code: 'STATE_DIR_MISSING' });
    assert.equal(await fsp.readFile(path.join(root, 'b.md'), 'utf8'), 'b');
    await fsp.mkdir(path.dirname(trash)); // the state folder exists: the ledger made it
    const now = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    const expect = statFingerprint(await fsp.lstat(path.join(root, 'dir/a.md')));
    const moved = await moveToTrash(root, 'dir/a.md', trash, { expect, now });
    assert.equal(moved, path.join(trash, '2024-01-02T03-04-05-006Z', 'dir', 'a.md'));
    assert.equal(await fsp.readFile(moved, 'utf8'), 'keep me');
    await assert.rejects(fsp.access(path.join(root, 'dir/a.md')));
    // Same path, same instant: a second folder rather than overwriting the first copy.
    await writeTree(root, { 'dir/a.md': 'second' });
    const again = await moveToTrash(root, 'dir/a.md', trash, { now });
    assert.equal(again, path.join(trash, '2024-01-02T03-04-05-006Z-2', 'dir', 'a.md'));
    const stale = { ...statFingerprint(await fsp.lstat(path.join(root, 'b.md'))), size: 999 };
    await assert.rejects(moveToTrash(root, 'b.md', trash, { expect: stale }), { code: 'FILE_CHANGED' });
    assert.equal(await fsp.readFile(path.join(root, 'b.md'), 'utf8'), 'b');
  });

  test('moveToTrash refuses a symlink and a path outside the root', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'real.md': 'x' });
    await fsp.symlink('real.md', path.join(root, 'link.md'));
    await assert.rejects(moveToTrash(root, 'link.md', path.join(root, '.kbsync/trash')), { code: 'UNSAFE_PATH' });
    await assert.rejects(moveToTrash(root, '../x.md', path.join(root, '.kbsync/trash')), { code: 'UNSAFE_PATH' });
    await assert.rejects(moveToTrash(root, 'nope.md', path.join(root, '.kbsync/trash')), { code: 'PATH_MISSING' });
  });

  test('backupText writes owner-only files in owner-only folders, never overwriting an older backup', async (t) => {
    const state = path.join(await tempDir(t), '.kbsync');
    await fsp.mkdir(path.join(state, 'backups'), { recursive: true, mode: 0o755 });
    await fsp.chmod(path.join(state, 'backups'), 0o755);
    const now = new Date(Date.UTC(2024, 0, 1));
    const first = await backupText(state, 'remote', 'notes/a.md', 'remote body', { now });
    const second = await backupText(state, 'remote', 'notes/a.md', 'later body', { now });
    assert.equal(first, path.join(state, 'backups', 'remote', '2024-01-01T00-00-00-000Z', 'notes', 'a.md'));
    assert.notEqual(first, second);
    assert.equal(await fsp.readFile(first, 'utf8'), 'remote body');
    assert.equal(await fsp.readFile(second, 'utf8'), 'later body');
    assert.equal((await fsp.stat(first)).mode & 0o777, 0o600);
    for (const folder of [path.join(state, 'backups'), path.dirname(first), path.join(state, 'backups', 'remote')]) {
      assert.equal((await fsp.stat(folder)).mode & 0o777, 0o700, folder);
    }
    await assert.rejects(backupText(state, 'local', '../../escape.md', 'x'), { code: 'UNSAFE_PATH' });
  });
});

describe('a file moved away the moment kbsync wrote it', () => {
  // Soak 744: the person moved a file just as its pull was renamed into place; the look at what was written then
  // found nothing there and was said UNEXPECTED. It is the file vanishing under the sync, which the next run sees.
  test('is FILE_VANISHED, with the path, and the move stands', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'note.md': 'old\n' });
    const rename = fsp.rename.bind(fsp);
    t.mock.method(fsp, 'rename', async (from: string, to: string) => {
      await rename(from, to);
      if (to === path.join(root, 'note.md')) await rename(to, path.join(root, 'moved.md'));
    });
    const expect = statFingerprint(await fsp.lstat(path.join(root, 'note.md')));
    await assert.rejects(writeFileAtomic(root, 'note.md', 'new\n', { expect }), (error: Error & { code?: string }) => error.code === 'FILE_VANISHED' && error.message.includes('note.md'));
    assert.equal(await fsp.readFile(path.join(root, 'moved.md'), 'utf8'), 'new\n');
  });
});
