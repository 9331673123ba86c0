import { promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { InputError, SafetyError } from '../errors.js';
import { isInside } from './paths.js';

/** The fix for a path in the way on this machine: a symlink. */
const SYMLINK_HINT = 'kbsync only writes inside the sync folder and never through a symlink. Replace the symlink with a real folder, or exclude the path.';
/**
 * A path no file here can have (absolute, `..`, a NUL) was not made by this machine: it came from the knowledge
 * base, whose shared state anyone who can edit the workspace can change. Saying "replace the symlink" would
 * send the person looking for something that is not there.
 */
const FOREIGN_PATH_HINT =
  'Such a path is never the name of a file here: it came from the knowledge base (the shared state in its .kbsync folder, which anyone who can edit the workspace can change). ' +
  'Nothing was written. `kbsync state` shows whether the state is damaged; `kbsync state rewrite` on a machine whose ledger is intact writes it anew.';

function unsafe(rel: string, why: string, hint = FOREIGN_PATH_HINT): SafetyError {
  return new SafetyError('UNSAFE_PATH', `Refusing to touch "${rel}": ${why}.`, { hint });
}

/**
 * The absolute path of a relative POSIX path inside `root`, or an UNSAFE_PATH error when it is
 * absolute, has empty, `.` or `..` segments, a NUL or a backslash (a separator on Windows), or
 * would resolve outside the root.
 */
export function safeRelativePath(root: string, rel: string): string {
  if (rel === '') throw unsafe(rel, 'the path is empty');
  if (rel.includes('\0')) throw unsafe(rel, 'the path holds a NUL character');
  if (rel.includes('\\')) throw unsafe(rel, 'the path holds a backslash, a separator on Windows');
  if (rel.startsWith('/') || path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) throw unsafe(rel, 'the path is absolute');
  for (const segment of rel.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw unsafe(rel, `the path has a "${segment}" segment`);
  }
  const absRoot = path.resolve(root);
  const abs = path.resolve(absRoot, ...rel.split('/'));
  if (abs === absRoot || !isInside(absRoot, abs)) throw unsafe(rel, 'it resolves outside the sync folder');
  return abs;
}

/** lstat, or null when nothing is there. */
export async function lstatOrNull(abs: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Checks every existing folder between `root` and `rel`'s parent, refusing a symlink, and with
 * `create` makes the missing ones one by one (never `recursive`, which would follow a symlink
 * planted in the path). Returns the parent folder's absolute path.
 */
export async function ensureParentFolders(root: string, rel: string, options: { readonly create: boolean; readonly mode?: number }): Promise<string> {
  safeRelativePath(root, rel);
  const segments = rel.split('/').slice(0, -1);
  let current = path.resolve(root);
  for (const [index, segment] of segments.entries()) {
    current = path.join(current, segment);
    const shown = segments.slice(0, index + 1).join('/');
    let stat = await lstatOrNull(current);
    if (stat === null && options.create) {
      try {
        await fsp.mkdir(current, { mode: options.mode ?? 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      stat = await fsp.lstat(current);
    }
    if (stat === null) throw new InputError('PATH_MISSING', `The folder "${shown}" does not exist.`, { hint: 'Run a fresh sync: the folder was moved or deleted meanwhile.' });
    // Named by the folder, not `rel`: callers pass a child name (`folder/_`) just to have the folder made.
    if (stat.isSymbolicLink()) throw unsafe(shown, 'that folder is a symlink', SYMLINK_HINT);
    if (!stat.isDirectory()) {
      throw new InputError('PATH_NOT_FOLDER', `Cannot write "${rel}": "${shown}" is a file, not a folder.`, {
        hint: 'Rename or move that file, then sync again.',
      });
    }
  }
  return current;
}

export { unsafe as unsafePathError };
