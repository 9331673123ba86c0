import { KbsyncError } from '../errors.js';

/**
 * Name rules shared by the scanner, the watcher and the safe-name builder, so that a name kbsync
 * writes is always a name kbsync will later read back as a normal file.
 */

/** Folders never walked: version control, dependencies (huge, never the user's writing). */
const ALWAYS_IGNORED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** The default name of kbsync's state folder inside the sync root. */
export const DEFAULT_STATE_DIR = '.kbsync';

/** Prefix of the temp files of kbsync's own atomic writes. */
export const KBSYNC_TEMP_PREFIX = '.kbsync-tmp-';

/** The per-folder ignore file, in gitignore syntax. */
export const IGNORE_FILE_NAME = '.kbsyncignore';

/**
 * Editor temp, lock, swap and backup files, and downloads in progress. They come and go while a
 * user saves; syncing them would create junk documents and deleting them would be noise.
 */
const TRANSIENT_FILE = new RegExp(
  [
    String.raw`^\.#`, // Emacs lock files
    String.raw`~$`, // Emacs/vim backups
    String.raw`\.sw[a-px]$`, // vim swap files (.swp, .swo, .swx, ...)
    String.raw`^4913$`, // vim's write-permission probe
    String.raw`\.tmp$`,
    String.raw`^\.~lock\.`, // LibreOffice locks
    String.raw`^~\$`, // Microsoft Office owner files
    String.raw`\.crdownload$`,
    String.raw`\.part$`,
    String.raw`\.kate-swp$`,
    String.raw`^\.DS_Store$`,
    String.raw`^Thumbs\.db$`,
    String.raw`^${escapeRegExp(KBSYNC_TEMP_PREFIX)}`,
  ].join('|'),
  'i',
);

/**
 * Conflict copies: kbsync's own `<name>.conflict-<when>.md` (any `*.conflict-*.md`), and those of
 * Syncthing (`.sync-conflict-`) and Dropbox (`(... conflicted copy ...)`) when the folder is also
 * synced by them. The user sees them; they never become new documents.
 */
const CONFLICT_COPY = /(?:\.conflict-[^/]*|\.sync-conflict-[^/]*|\([^/]*conflicted copy[^/]*\))\.md$/i;

export function isTransientFileName(name: string): boolean {
  return TRANSIENT_FILE.test(name);
}

/**
 * True for a folder name the scanner never enters, whatever the configuration. Editor temp
 * patterns are not applied to folders: a folder called `drafts~` holds real writing.
 */
export function isAlwaysIgnoredDirName(name: string): boolean {
  return ALWAYS_IGNORED_DIRS.has(name) || name === DEFAULT_STATE_DIR;
}

export function isConflictCopyName(name: string): boolean {
  return CONFLICT_COPY.test(name);
}

/**
 * Where the other side's version of a clashing file is written, beside the local one:
 * `notes/a.md` → `notes/a.conflict-20240501-120000.md`. `attempt` > 1 adds `-<attempt>` when
 * two conflicts of one file land in the same second.
 */
export function conflictCopyPath(relPath: string, when: Date, attempt = 1): string {
  if (isConflictCopyName(relPath.split('/').pop() ?? relPath)) {
    throw new KbsyncError(
      'CONFLICT_OF_CONFLICT',
      `"${relPath}" is already a conflict copy, and no conflict copy is ever made of a conflict copy.`,
      { hint: 'Resolve the conflict by hand: keep the content you want and delete the copy.' },
    );
  }
  const stem = relPath.replace(/\.md$/i, '');
  const pad = (n: number): string => String(n).padStart(2, '0');
  const stamp =
    `${when.getUTCFullYear()}${pad(when.getUTCMonth() + 1)}${pad(when.getUTCDate())}-` +
    `${pad(when.getUTCHours())}${pad(when.getUTCMinutes())}${pad(when.getUTCSeconds())}`;
  return `${stem}.conflict-${stamp}${attempt > 1 ? `-${attempt}` : ''}.md`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, String.raw`\$&`);
}
