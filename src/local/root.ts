import { promises as fsp } from 'node:fs';
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
    const code = (error as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${messageOf(error)})`;
    throw new InputError('ROOT_MISSING', `The sync folder ${root} ${what}.`, {
      hint: 'Is the drive unmounted or the folder moved? Mount or restore it, or fix "root" in sync.config.json. kbsync will not treat a missing folder as empty.',
      cause: error,
    });
  }
  if (!stat.isDirectory()) {
    throw new InputError('ROOT_MISSING', `The sync folder ${root} is not a folder.`, {
      hint: 'Point "root" in sync.config.json at the folder that holds your Markdown files.',
    });
  }
  return stat;
}
