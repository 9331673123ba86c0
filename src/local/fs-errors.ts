import type { ErrorCode } from '../codes.js';
import { KbsyncError } from '../errors.js';

/** What the file system said, when it refused kbsync for a reason the user can fix. */
const FIXES: Readonly<Record<string, { readonly code: ErrorCode; readonly what: string; readonly hint: string }>> = {
  EACCES: { code: 'PERMISSION_DENIED', what: 'permission denied', hint: 'Give your user read and write access to it (chmod/chown), or sync a folder you own.' },
  EPERM: { code: 'PERMISSION_DENIED', what: 'the operation is not permitted', hint: 'Check its permissions and attributes (an immutable or locked file), or sync a folder you own.' },
  EROFS: { code: 'READ_ONLY_FILE_SYSTEM', what: 'the file system is read-only', hint: 'Remount it read-write, or sync a folder on a writable disk.' },
  ENOSPC: { code: 'DISK_FULL', what: 'the disk is full', hint: 'Free some space (kbsync keeps backups in its state folder: see backups in the config), then sync again.' },
  EDQUOT: { code: 'DISK_FULL', what: 'the disk quota is used up', hint: 'Free some space or raise the quota, then sync again.' },
};

/**
 * A file-system error in words, naming the path: "permission denied" on a read-only folder, a full disk.
 * Anything else, and errors that already speak kbsync's language, pass through unchanged.
 */
export function explainFsError(error: unknown, shownPath?: string): unknown {
  if (error instanceof KbsyncError || typeof error !== 'object' || error === null) return error;
  const { code, path } = error as NodeJS.ErrnoException;
  const fix = code ? FIXES[code] : undefined;
  if (!fix) return error;
  const where = path ?? shownPath;
  return new KbsyncError(fix.code, `kbsync could not write${where ? ` ${where}` : ''}: ${fix.what}.`, { hint: fix.hint, cause: error });
}
