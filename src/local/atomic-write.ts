import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { checkExpectation, type Expectation } from './expect.js';
import { statFingerprint, type FileFingerprint } from './fingerprint.js';
import { KBSYNC_TEMP_PREFIX } from './names.js';
import { assertRootDirectory } from './root.js';
import { ensureParentFolders, lstatOrNull, safeRelativePath, unsafePathError } from './safe-path.js';
import { encodeText, type LineEnding } from './text-file.js';

type WriteOptions = {
  /** File mode. Default: the replaced file's mode, or 0666 minus the umask for a new file. */
  readonly mode?: number;
  readonly eol?: LineEnding;
  readonly bom?: boolean;
  /** Refuse (SafetyError FILE_CHANGED) unless the target is still this, or absent. */
  readonly expect?: Expectation;
};

/**
 * Writes a file so that a crash leaves either the old or the new content, never half of each:
 * temp file in the same folder, fsync, rename, fsync the folder. `expect` is checked before and once more
 * right before the rename (what is left is the moment between that check and the rename). Returns the new fingerprint so
 * the engine records it and its own write does not come back as a local edit.
 */
export async function writeFileAtomic(root: string, relPath: string, text: string, options: WriteOptions = {}): Promise<FileFingerprint> {
  const absRoot = path.resolve(root);
  await assertRootDirectory(absRoot);
  const target = safeRelativePath(absRoot, relPath);
  const folder = await ensureParentFolders(absRoot, relPath, { create: true });
  const existing = await lstatOrNull(target);
  if (existing?.isSymbolicLink()) throw unsafePathError(relPath, 'the file is a symlink');
  if (existing && !existing.isFile()) {
    throw new InputError('PATH_NOT_FILE', `Cannot write "${relPath}": a folder or special file is in the way.`, {
      hint: 'Rename it, then sync again.',
    });
  }
  checkExpectation(relPath, existing, options.expect);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
  const temp = path.join(folder, `${KBSYNC_TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  const handle = await fsp.open(temp, 'wx', 0o666);
  try {
    try {
      await handle.writeFile(encodeText(text, options));
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // Again, right before the rename: writing and flushing the new text can take seconds on a busy disk, and a
    // save in place that lands meanwhile would be replaced unseen (the soak lost a paragraph so, seed 12).
    checkExpectation(relPath, await lstatOrNull(target), options.expect);
    await fsp.rename(temp, target);
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
  await syncFolder(folder);
  return statFingerprint(await fsp.lstat(target));
}

/** Makes a rename durable. Some file systems cannot fsync a folder; the rename still happened. */
export async function syncFolder(folder: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}
