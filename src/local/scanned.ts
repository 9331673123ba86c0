import { byKey, type LocalFile } from './scan.js';

/**
 * A run's scanned files by path. Found by a binary search of the scan, which is sorted (scan.ts, byKey), not
 * from a map of every file made per run: a daemon's save looks up one file of 10,000, and a map of all of
 * them was a few milliseconds of every save. A path the search misses is looked for file by file (a scan put
 * together otherwise, say by a test, need not be sorted), so what is found never depends on the order. A file
 * the run rewrote is forgotten: its scanned stat no longer holds.
 */
export class ScannedFiles {
  readonly #files: readonly LocalFile[];
  readonly #forgotten = new Set<string>();
  /** Files the run moved (act/move-local.ts), by their new path: a rename keeps the stat the scan took. */
  readonly #moved = new Map<string, LocalFile>();

  constructor(files: readonly LocalFile[]) {
    this.#files = files;
  }

  get(path: string): LocalFile | undefined {
    if (this.#forgotten.has(path)) return undefined;
    const moved = this.#moved.get(path);
    if (moved) return moved;
    const probe = { key: path.normalize('NFC'), path };
    let low = 0;
    let high = this.#files.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const file = this.#files[mid] as LocalFile;
      const order = byKey(file, probe);
      if (order === 0) return file;
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return this.#files.find((file) => file.path === path);
  }

  delete(path: string): void {
    this.#forgotten.add(path);
  }

  /**
   * The file at `from` was renamed to `to` by this run: its scanned stat (a rename keeps size, mtime and inode)
   * stands for the file at `to`, so a later write there in the run expects the file as the scan saw it, not as it
   * is when written (an edit made meanwhile would be overwritten unseen). Nothing at `to` was scanned to keep.
   */
  moved(from: string, to: string): void {
    const file = this.get(from);
    this.#forgotten.add(from);
    this.#forgotten.delete(to);
    if (file) this.#moved.set(to, file);
    else this.#forgotten.add(to);
  }
}
