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

  constructor(files: readonly LocalFile[]) {
    this.#files = files;
  }

  get(path: string): LocalFile | undefined {
    if (this.#forgotten.has(path)) return undefined;
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
}
