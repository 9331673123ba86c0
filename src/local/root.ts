import { promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { InputError, messageOf } from '../errors.js';

/**
 * A missing root must never look like an empty folder (which would read as "every file deleted"):
 * it is usually an unmounted drive or a moved folder, so it is an error.
 */
export async function assertRootDirectory(root: string): Promise<Stats> {
  let stat: Stats;
  try {
    stat = await fsp.stat(root);
  } catch (error) {
    throw rootMissing(root, error);
  }
  return checkedRoot(root, stat);
}

/**
 * The same check, synchronously, for callers about to create something inside the root (the state
 * folder): creating it would quietly re-create a root that is missing, on the disk under the mount point.
 */
export function assertRootDirectorySync(root: string): Stats {
  let stat: Stats;
  try {
    stat = statSync(root);
  } catch (error) {
    throw rootMissing(root, error);
  }
  return checkedRoot(root, stat);
}

function rootMissing(root: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  const what = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${messageOf(error)})`;
  return new InputError('ROOT_MISSING', `The sync folder ${root} ${what}.`, {
    hint: 'Is the drive unmounted or the folder moved? Mount or restore it, or fix "root" in sync.config.json. kbsync will not treat a missing folder as empty.',
    cause: error,
  });
}

function checkedRoot(root: string, stat: Stats): Stats {
  if (!stat.isDirectory()) {
    throw new InputError('ROOT_MISSING', `The sync folder ${root} is not a folder.`, {
      hint: 'Point "root" in sync.config.json at the folder that holds your Markdown files.',
    });
  }
  return stat;
}

/**
 * A root of `/`, the home folder, or a folder that holds the home folder would sync every Markdown file
 * on the machine (config files, caches, other projects): almost always a typo or an unset variable.
 */
export function assertNarrowRoot(root: string, home: string, allowed: boolean): void {
  if (allowed) return;
  const abs = path.resolve(root);
  const absHome = path.resolve(home);
  const top = path.parse(abs).root;
  const what =
    abs === top ? 'the top of the file system' : abs === absHome ? 'your home folder' : absHome.startsWith(`${abs}${path.sep}`) ? `a folder that holds your home folder (${absHome})` : undefined;
  if (!what) return;
  throw new InputError('ROOT_TOO_BROAD', `The sync folder ${abs} is ${what}: kbsync would publish every Markdown file under it.`, {
    hint: 'Point "root" in sync.config.json (or KBSYNC_ROOT) at the folder of your notes. If you really mean it, set "allowBroadRoot": true in the config (or KBSYNC_ALLOW_BROAD_ROOT=true).',
  });
}
