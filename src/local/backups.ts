import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { lstatOrNull } from './safe-path.js';

export type BackupRetention = {
  /** Backups kept per file and side. */
  readonly keepPerFile: number;
  /** Older backups are removed, except each file's newest. */
  readonly maxAgeDays: number;
};

type Backup = { readonly abs: string; readonly stamp: string; readonly size: number; readonly mtimeMs: number };

/**
 * Every backup under `<stateDir>/backups/<side>/<timestamp>/<relPath>`, grouped by side and file. The
 * timestamp folders sort in time order (see timestampFolderName).
 */
async function listBackups(stateDir: string): Promise<Map<string, Backup[]>> {
  const root = path.join(stateDir, 'backups');
  const groups = new Map<string, Backup[]>();
  for (const side of await names(root)) {
    for (const stamp of await names(path.join(root, side))) {
      const walk = async (abs: string, rel: string): Promise<void> => {
        const stat = await lstatOrNull(abs);
        if (!stat) return;
        if (stat.isDirectory()) {
          for (const name of await names(abs)) await walk(path.join(abs, name), rel === '' ? name : `${rel}/${name}`);
          return;
        }
        const key = `${side}\0${rel}`;
        const list = groups.get(key) ?? [];
        list.push({ abs, stamp, size: stat.size, mtimeMs: stat.mtimeMs });
        groups.set(key, list);
      };
      await walk(path.join(root, side, stamp), '');
    }
  }
  return groups;
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * Applies the retention: per file and side, the newest `keepPerFile` backups stay, and of those, ones older
 * than `maxAgeDays` go too, except the newest (a file's last backup is never removed by age alone).
 * Emptied timestamp folders are removed. Returns what was removed.
 */
export async function pruneBackups(stateDir: string, retention: BackupRetention, now = Date.now()): Promise<{ readonly files: number; readonly bytes: number }> {
  const cutoff = now - retention.maxAgeDays * 86_400_000;
  let files = 0;
  let bytes = 0;
  for (const list of (await listBackups(stateDir)).values()) {
    const newestFirst = [...list].sort((a, b) => (a.stamp < b.stamp ? 1 : a.stamp > b.stamp ? -1 : 0));
    for (const [index, backup] of newestFirst.entries()) {
      if (index === 0 || (index < retention.keepPerFile && backup.mtimeMs >= cutoff)) continue;
      await fsp.rm(backup.abs, { force: true });
      files += 1;
      bytes += backup.size;
    }
  }
  if (files > 0) await removeEmptyFolders(path.join(stateDir, 'backups'));
  return { files, bytes };
}

/** How many backups there are and how much room they take (for `kbsync status`). */
export async function backupsSize(stateDir: string): Promise<{ readonly files: number; readonly bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const list of (await listBackups(stateDir)).values()) {
    files += list.length;
    for (const backup of list) bytes += backup.size;
  }
  return { files, bytes };
}

async function removeEmptyFolders(dir: string): Promise<boolean> {
  const stat = await lstatOrNull(dir);
  if (!stat?.isDirectory()) return false;
  let empty = true;
  for (const name of await names(dir)) {
    const child = path.join(dir, name);
    const childStat = await lstatOrNull(child);
    if (childStat?.isDirectory() && (await removeEmptyFolders(child))) continue;
    empty = false;
  }
  if (empty) await fsp.rmdir(dir).catch(() => undefined);
  return empty;
}
