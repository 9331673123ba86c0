import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError, KbsyncError } from '../errors.js';
import { checkExpectation, type Expectation } from './expect.js';
import { sameFingerprint, statFingerprint, type FileFingerprint } from './fingerprint.js';
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
 * at the rename (renameChecked). Returns the new fingerprint so
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
    // Again, at the rename: writing and flushing the new text can take seconds on a busy disk, and a save in place
    // that lands meanwhile would be replaced unseen (the soak lost a paragraph so, seed 12).
    await renameChecked(folder, temp, target, relPath, options.expect);
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
  await syncFolder(folder);
  return fingerprintOfWritten(target, relPath);
}

/**
 * The fingerprint of a file kbsync has just written or moved. The person may move or delete it in the moment
 * between (soak 744: a file moved away as its pull was flushed was said UNEXPECTED): that is the file vanishing
 * under the sync, which the next run sees, not a fault of kbsync's.
 */
export async function fingerprintOfWritten(target: string, relPath: string): Promise<FileFingerprint> {
  const stat = await lstatOrNull(target);
  if (!stat) throw new KbsyncError('FILE_VANISHED', `"${relPath}" disappeared as kbsync wrote it.`, { hint: 'Sync again: the next run sees where it went.' });
  return statFingerprint(stat);
}

/**
 * Renames `temp` over `target` if `target` is still `expect`. A check just before the rename is not enough: the
 * rename is queued behind the process's other file work (a slow fsync of another write, a busy event loop), and on a
 * loaded machine a save in place landed between that check and the rename and was replaced unseen (soak seed 715: a
 * word formatted 1.4 s after a pull read the file). So the file to be replaced is first kept under a second name (a
 * hard link: the same inode, the one an editor saving in place writes into), and looked at again once the rename is
 * done; if it is not the file expected after all, it is put back and the write refused. What is left: an editor's
 * save by rename (a new file over the path) in that moment is replaced still, as Node cannot swap two names in one
 * step (renameat2's RENAME_EXCHANGE); and a file system without hard links gets the check and the rename alone.
 */
async function renameChecked(folder: string, temp: string, target: string, relPath: string, expect: Expectation | undefined): Promise<void> {
  const checkedThenRenamed = async (): Promise<void> => {
    checkExpectation(relPath, await lstatOrNull(target), expect);
    await fsp.rename(temp, target);
  };
  if (expect === undefined || expect === 'absent') return checkedThenRenamed();
  const kept = await keptLink(folder, target);
  if (kept === undefined) return checkedThenRenamed();
  // Set while the kept file holds a save that is not back at its path: it is never removed then.
  let holdsASave = false;
  try {
    checkExpectation(relPath, await lstatOrNull(kept), expect);
    await fsp.rename(temp, target);
    const replaced = await fsp.lstat(kept);
    if (!sameFingerprint(statFingerprint(replaced), expect)) {
      holdsASave = true;
      await fsp.rename(kept, target);
      holdsASave = false;
      checkExpectation(relPath, replaced, expect); // throws FILE_CHANGED: it was edited
    }
  } finally {
    if (!holdsASave) await fsp.rm(kept, { force: true });
  }
}

/** A second name for the file at `target` (its path), or undefined where the file system makes no hard links. */
async function keptLink(folder: string, target: string): Promise<string | undefined> {
  const kept = path.join(folder, `${KBSYNC_TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  return fsp.link(target, kept).then(
    () => kept,
    (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      // The file went meanwhile: the check at the kept name says so (it is absent there too).
      if (code === 'ENOENT') return kept;
      if (NO_HARD_LINKS.has(code)) return undefined;
      throw error;
    },
  );
}

/** What link(2) answers on a file system that has no hard links (FAT, exFAT, some network shares). */
const NO_HARD_LINKS: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

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
