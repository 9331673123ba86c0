import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { syncFolder } from './atomic-write.js';
import { checkExpectation, type Expectation } from './expect.js';
import { ensureParentFolders, lstatOrNull, safeRelativePath, unsafePathError } from './safe-path.js';

const PRIVATE_FOLDER = 0o700;
const PRIVATE_FILE = 0o600;

/** A folder-name-safe, sortable timestamp: 2024-05-01T12-00-00-123Z. */
export function timestampFolderName(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

/**
 * Deletes a local file the recoverable way: moves it to `<trashDir>/<timestamp>/<relPath>`.
 * Across file systems the rename becomes copy + fsync + unlink. Returns where the file went.
 */
export async function moveToTrash(
  root: string,
  relPath: string,
  trashDir: string,
  options: { readonly expect?: Expectation; readonly now?: Date } = {},
): Promise<string> {
  const source = safeRelativePath(root, relPath);
  await ensureParentFolders(root, relPath, { create: false });
  const stat = await lstatOrNull(source);
  if (stat?.isSymbolicLink()) throw unsafePathError(relPath, 'the file is a symlink');
  if (stat === null) throw new InputError('PATH_MISSING', `Cannot move "${relPath}" to the trash: it does not exist.`, { hint: 'Nothing to do; it is already gone.' });
  if (!stat.isFile()) throw new InputError('PATH_NOT_FILE', `Cannot move "${relPath}" to the trash: it is not a file.`, { hint: 'kbsync only trashes files it synced.' });
  checkExpectation(relPath, stat, options.expect);
  await requireStateDir(path.dirname(trashDir));
  const destination = await freeDestination(trashDir, relPath, options.now ?? new Date());
  await fsp.mkdir(path.dirname(destination), { recursive: true, mode: PRIVATE_FOLDER });
  try {
    await fsp.rename(source, destination);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyDurably(source, destination, stat.mode & 0o7777);
    await fsp.unlink(source);
  }
  await syncFolder(path.dirname(source));
  return destination;
}

/**
 * Keeps a copy of a body about to be overwritten (design rule 3), under
 * `<stateDir>/backups/<kind>/<timestamp>/<relPath>`, readable by the owner only.
 */
export async function backupText(
  stateDir: string,
  kind: 'local' | 'remote',
  relPath: string,
  text: string,
  options: { readonly now?: Date } = {},
): Promise<string> {
  await requireStateDir(stateDir);
  const backups = path.join(stateDir, 'backups');
  await fsp.mkdir(backups, { recursive: true, mode: PRIVATE_FOLDER });
  await fsp.chmod(backups, PRIVATE_FOLDER); // an older, laxer folder is tightened
  const destination = await freeDestination(path.join(backups, kind), relPath, options.now ?? new Date());
  await fsp.mkdir(path.dirname(destination), { recursive: true, mode: PRIVATE_FOLDER });
  const handle = await fsp.open(destination, 'wx', PRIVATE_FILE);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(PRIVATE_FILE);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return destination;
}

/**
 * The state folder is made once, when the ledger is opened (after the root was checked). If it is gone
 * now, the root went with it (an unmounted drive, a removed folder): making it again would re-create
 * the root on the disk under the mount point, and the next run would pull everything into it.
 */
async function requireStateDir(stateDir: string): Promise<void> {
  const stat = await lstatOrNull(stateDir);
  if (stat?.isDirectory()) return;
  throw new InputError('STATE_DIR_MISSING', `kbsync's state folder ${stateDir} is gone, so nothing was written (was the sync folder removed or its drive unmounted?).`, {
    hint: 'Mount or restore the sync folder, then sync again; kbsync will not re-create a folder that vanished.',
  });
}

/** `<base>/<timestamp>/<relPath>`, with `-2`, `-3`... on the timestamp when that path is taken. */
async function freeDestination(base: string, relPath: string, now: Date): Promise<string> {
  const stamp = timestampFolderName(now);
  for (let attempt = 1; ; attempt += 1) {
    const folder = path.join(base, attempt === 1 ? stamp : `${stamp}-${attempt}`);
    const destination = safeRelativePath(folder, relPath);
    if ((await lstatOrNull(destination)) === null) return destination;
  }
}

async function copyDurably(source: string, destination: string, mode: number): Promise<void> {
  await fsp.copyFile(source, destination, constants.COPYFILE_EXCL);
  await fsp.chmod(destination, mode);
  const handle = await fsp.open(destination, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
