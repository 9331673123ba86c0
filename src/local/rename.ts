import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { fingerprintOfWritten, syncFolder } from './atomic-write.js';
import { checkExpectation, type Expectation } from './expect.js';
import type { FileFingerprint } from './fingerprint.js';
import { assertRootDirectory } from './root.js';
import { ensureParentFolders, lstatOrNull, safeRelativePath, unsafePathError } from './safe-path.js';

/**
 * Moves a file inside the root, byte for byte, when it is still what was last read (`expect`) and the
 * destination is free: never through a symlink, never over another file. Returns the moved file's
 * fingerprint (the inode survives a rename, so the move is not read as an edit).
 */
export async function renameFile(root: string, from: string, to: string, expect: Expectation): Promise<FileFingerprint> {
  const absRoot = path.resolve(root);
  await assertRootDirectory(absRoot);
  const source = safeRelativePath(absRoot, from);
  const target = safeRelativePath(absRoot, to);
  await ensureParentFolders(absRoot, from, { create: false });
  const folder = await ensureParentFolders(absRoot, to, { create: true });
  const stat = await lstatOrNull(source);
  if (stat?.isSymbolicLink()) throw unsafePathError(from, 'the file is a symlink');
  checkExpectation(from, stat, expect);
  if ((await lstatOrNull(target)) !== null) {
    throw new InputError('PATH_TAKEN', `Cannot move "${from}" to "${to}": something is already there.`, { hint: 'Rename or move that file, then sync again.' });
  }
  await fsp.rename(source, target);
  await syncFolder(folder);
  if (path.dirname(source) !== folder) await syncFolder(path.dirname(source));
  return fingerprintOfWritten(target, to);
}
