import { lstatSync, readdirSync, promises as fsp } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import type { ErrorCode } from '../codes.js';
import { InputError, messageOf } from '../errors.js';
import { IgnoreTree } from './ignore-tree.js';
import { createLimit, runPool } from './limit.js';
import { IGNORE_FILE_NAME } from './names.js';
import { PathFilter, type FilterOptions } from './path-filter.js';
import { describeSymlink } from './symlinks.js';
import { assertRootDirectorySync } from './root.js';

export type LocalFile = {
  /** Relative POSIX path exactly as on disk (use it to open the file). */
  readonly path: string;
  /** `path` in NFC: the key to compare and store, stable across macOS/Linux name forms. */
  readonly key: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly dev: number;
};

export type ScanSkip = {
  readonly path: string;
  readonly reason: string;
  /** Set for a name that stops a file from syncing until the user renames it (the run does not count as complete). */
  readonly code?: 'NAME_TWIN' | 'NAME_UNPORTABLE';
};
export type ScanProblem = { readonly path: string; readonly code: ErrorCode; readonly reason: string };

export type LocalScan = {
  /** The absolute root that was scanned. */
  readonly root: string;
  /** Device and inode of the root: a change means another file system is mounted there now. */
  readonly rootDev: number;
  readonly rootIno: number;
  /** Files to sync, sorted by key. */
  readonly files: readonly LocalFile[];
  /** `*.conflict-<when>.md` copies: shown to the user, never synced as new documents. */
  readonly conflictCopies: readonly LocalFile[];
  /** Folders seen (relative POSIX, on-disk form), ignored ones left out, sorted. */
  readonly folders: readonly string[];
  /** Entries deliberately not synced, with the reason (symlinks, special files, name clashes). */
  readonly skipped: readonly ScanSkip[];
  /** What could not be read. Any problem makes the scan incomplete. */
  readonly problems: readonly ScanProblem[];
  /** False when part of the tree could not be read: never infer a deletion from such a scan. */
  readonly complete: boolean;
};

/** The file-system calls the scanner makes; replaceable so tests can simulate failures. */
export type ScanFs = {
  readdir(dir: string): Promise<Dirent[]>;
  /** readdir without a promise, where the file system has one: the walk then reads folders in its own loop. */
  readdirSync?(dir: string): Dirent[];
  lstat(file: string): Promise<Stats>;
  /** lstat without a promise, where the file system has one: the walk then stats each file in its loop. */
  lstatSync?(file: string): Stats;
  readFile(file: string): Promise<string>;
};

export type ScanOptions = FilterOptions & {
  /** Folders read at once (each with up to 16 stats in flight). Default 4 (libuv has 4 threads). */
  readonly folderConcurrency?: number;
  readonly fs?: ScanFs;
};

/**
 * lstat and readdir run synchronously, in the walk's loop: a call served from the kernel's cache takes
 * microseconds, while the promise form costs several times as much main-thread time (a thread-pool round
 * trip and a promise per call), which made it most of a no-op sync; a folder's thread-pool round trip alone
 * was a third of a no-op on 1,000 files. The event loop still gets a turn every YIELD_AFTER_MS of walking
 * (see `walk`), so a daemon's sweep of a large tree never holds up its watcher or its requests for long.
 */
const nodeFs: ScanFs = {
  readdir: (dir) => fsp.readdir(dir, { withFileTypes: true }),
  readdirSync: (dir) => readdirSync(dir, { withFileTypes: true }),
  lstat: (file) => fsp.lstat(file),
  lstatSync: (file) => lstatSync(file),
  readFile: (file) => fsp.readFile(file, 'utf8'),
};

/**
 * Walks the sync root and lists every file to sync with its stat fingerprint. Symlinks are never
 * followed, so a loop cannot hang the walk and nothing outside the root is ever read.
 */
export async function scanLocal(root: string, options: ScanOptions = {}): Promise<LocalScan> {
  const absRoot = path.resolve(root);
  // Checked without a thread-pool round trip, like the rest of the walk: a no-op push waited on it.
  const rootStat = assertRootDirectorySync(absRoot);
  const fs = options.fs ?? nodeFs;
  // At most folderConcurrency × STATS_PER_FOLDER calls in flight.
  const folderSlots = createLimit(options.folderConcurrency ?? 4);
  const filter = new PathFilter(absRoot, options);
  const tree = new IgnoreTree();
  const files: LocalFile[] = [];
  const conflictCopies: LocalFile[] = [];
  const folders: string[] = [];
  const skipped: ScanSkip[] = [];
  const problems: ScanProblem[] = [];

  const problem = (rel: string, error: unknown, what: string): void => {
    const errno = (error as NodeJS.ErrnoException).code;
    const code: ErrorCode = errno === 'EACCES' || errno === 'EPERM' ? 'PERMISSION_DENIED' : 'FILE_UNREADABLE';
    problems.push({ path: rel, code, reason: `${what}: ${messageOf(error)}` });
  };

  const statFailed = (rel: string, error: unknown): void => {
    // Gone between readdir and lstat: it was deleted just now, which is what a rescan would see.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problem(rel, error, 'cannot stat file');
  };
  const addFile = (rel: string, key: string, into: LocalFile[], stat: Stats): void => {
    if (!stat.isFile()) return; // replaced by something else mid-scan; the next scan sees it
    into.push({ path: rel, key, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev });
  };
  const statFile = async (abs: string, rel: string, key: string, into: LocalFile[]): Promise<void> => {
    let stat: Stats;
    try {
      stat = await fs.lstat(abs);
    } catch (error) {
      statFailed(rel, error);
      return;
    }
    addFile(rel, key, into, stat);
  };
  const statFileNow = (lstatNow: (file: string) => Stats, abs: string, rel: string, key: string, into: LocalFile[]): void => {
    let stat: Stats;
    try {
      stat = lstatNow(abs);
    } catch (error) {
      statFailed(rel, error);
      return;
    }
    addFile(rel, key, into, stat);
  };

  /** Reads one folder and stats its files; returns the subfolders to walk next. */
  const visit = async (abs: string, rel: string): Promise<Array<[abs: string, rel: string]>> => {
    let entries: Dirent[];
    try {
      entries = fs.readdirSync ? fs.readdirSync(abs) : await fs.readdir(abs);
    } catch (error) {
      if (rel === '') throw rootUnreadable(absRoot, error);
      problem(rel, error, 'cannot read folder');
      return [];
    }
    if (entries.some((entry) => entry.name === IGNORE_FILE_NAME && entry.isFile())) {
      try {
        tree.set(rel.normalize('NFC'), await fs.readFile(path.join(abs, IGNORE_FILE_NAME)));
      } catch (error) {
        // Without its rules we cannot tell what the folder keeps private: leave it all out.
        problem(join(rel, IGNORE_FILE_NAME), error, 'cannot read ignore file; folder skipped');
        return [];
      }
    }
    const subfolders: Array<[string, string]> = [];
    const work: Array<() => Promise<void>> = [];
    // abs is resolved already: a name is appended, not normalised again for every entry.
    const prefix = abs.endsWith(path.sep) ? abs : `${abs}${path.sep}`;
    for (const entry of entries) {
      const childRel = join(rel, entry.name);
      const childAbs = `${prefix}${entry.name}`;
      const key = childRel.normalize('NFC');
      if (entry.name.includes('\\') && (entry.isDirectory() || /\.md$/i.test(entry.name))) {
        // A backslash is a folder separator on Windows: such a path can be neither recorded nor written back everywhere.
        skipped.push({ path: childRel, code: 'NAME_UNPORTABLE', reason: 'its name holds a backslash, a folder separator on Windows; rename it to sync it' });
        continue;
      }
      if (entry.isDirectory()) {
        if (filter.dirIgnored(key) || tree.ignores(key, true)) continue;
        folders.push(childRel);
        subfolders.push([childAbs, childRel]);
      } else if (entry.isSymbolicLink()) {
        if (tree.ignores(key, false) || (filter.dirIgnored(key) && filter.fileVerdict(key) === 'ignored')) continue;
        work.push(async () => {
          const symlink = await describeSymlink(absRoot, childAbs);
          if (symlink.kind === 'file' && filter.fileVerdict(key) === 'ignored') return;
          if (symlink.kind === 'folder' && filter.dirIgnored(key)) return;
          skipped.push({ path: childRel, reason: symlink.reason });
        });
      } else {
        const verdict = tree.ignores(key, false) ? 'ignored' : filter.fileVerdict(key);
        if (verdict === 'ignored') continue;
        const into = verdict === 'conflict' ? conflictCopies : files;
        if (!entry.isFile()) skipped.push({ path: childRel, reason: 'not a regular file (device, pipe or socket)' });
        else if (fs.lstatSync) statFileNow(fs.lstatSync, childAbs, childRel, key, into);
        else work.push(() => statFile(childAbs, childRel, key, into));
      }
    }
    await runPool(work, STATS_PER_FOLDER);
    return subfolders;
  };

  let turnAt = Date.now();
  const walk = async (abs: string, rel: string): Promise<void> => {
    // The folder's slot is released before its subfolders are walked, so nesting cannot deadlock.
    const subfolders = await folderSlots(() => visit(abs, rel));
    // Synchronous calls and resolved promises never leave the microtask queue: give timers and I/O their turn.
    if (Date.now() - turnAt > YIELD_AFTER_MS) {
      await nextTurn();
      turnAt = Date.now();
    }
    await Promise.all(subfolders.map(([childAbs, childRel]) => walk(childAbs, childRel)));
  };

  await walk(absRoot, '');
  files.sort(byKey);
  conflictCopies.sort(byKey);
  return {
    root: absRoot,
    rootDev: rootStat.dev,
    rootIno: rootStat.ino,
    files: dropNormalisationTwins(files, skipped),
    conflictCopies,
    folders: folders.sort(compare),
    skipped: skipped.sort((a, b) => compare(a.path, b.path)),
    problems: problems.sort((a, b) => compare(a.path, b.path)),
    complete: problems.length === 0,
  };
}

/**
 * Two names that differ only in Unicode form (NFC vs NFD, possible on Linux) are one document:
 * sync the first, report the other, rather than let them overwrite each other.
 */
function dropNormalisationTwins(sorted: LocalFile[], skipped: ScanSkip[]): LocalFile[] {
  const kept: LocalFile[] = [];
  for (const file of sorted) {
    const previous = kept.at(-1);
    if (previous && previous.key === file.key) {
      skipped.push({ path: file.path, code: 'NAME_TWIN', reason: `same name as "${previous.path}" after Unicode normalisation (NFC), so the two would be one document; rename one of them` });
      continue;
    }
    kept.push(file);
  }
  return kept;
}

function rootUnreadable(root: string, error: unknown): InputError {
  return new InputError('ROOT_UNREADABLE', `Cannot read the sync folder ${root}: ${messageOf(error)}.`, {
    hint: 'Check its permissions (kbsync needs to list and read it).',
    cause: error,
  });
}

const STATS_PER_FOLDER = 16;
/** The longest the walk runs before the event loop gets a turn. */
const YIELD_AFTER_MS = 10;
const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The order of a scan's files: by key (the path in NFC), then by path. */
export const byKey = (a: Pick<LocalFile, 'key' | 'path'>, b: Pick<LocalFile, 'key' | 'path'>): number => compare(a.key, b.key) || compare(a.path, b.path);
