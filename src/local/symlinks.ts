import { promises as fsp } from 'node:fs';
import { isInside } from './paths.js';

type SymlinkInfo = {
  readonly kind: 'file' | 'folder' | 'other' | 'broken';
  /** Why it is not synced, for the scan report. */
  readonly reason: string;
};

/**
 * Describes a symlink without following it for syncing: kbsync never syncs through a link (the
 * target may be outside the root, or the same file twice), but the user should learn why a file
 * they can see is not synced.
 */
export async function describeSymlink(root: string, linkAbs: string): Promise<SymlinkInfo> {
  let target: string;
  try {
    target = await fsp.realpath(linkAbs);
  } catch (error) {
    const loop = (error as NodeJS.ErrnoException).code === 'ELOOP';
    return { kind: 'broken', reason: loop ? 'symlink loop; not followed' : 'broken symlink (its target does not exist)' };
  }
  const realRoot = await fsp.realpath(root);
  const where = isInside(realRoot, target) ? 'inside the sync folder' : 'outside the sync folder';
  const stat = await fsp.stat(target).catch(() => null);
  if (stat?.isDirectory()) return { kind: 'folder', reason: `symlinked folder (target ${where}); symlinks are never followed` };
  if (stat?.isFile()) {
    const advice = where === 'inside the sync folder' ? 'the target is scanned at its own path' : 'move or copy the file into the folder to sync it';
    return { kind: 'file', reason: `symlink to a file ${where}; symlinks are never followed (${advice})` };
  }
  return { kind: 'other', reason: `symlink to something that is not a file or folder (${where})` };
}
