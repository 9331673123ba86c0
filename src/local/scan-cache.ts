import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { assertRootDirectory } from './root.js';
import { isImageFile } from '../images/media-type.js';
import { scanLocal, type LocalFile, type LocalScan, type ScanOptions } from './scan.js';

/** How a run lists the folder: `scanLocal` itself, or a cache that knows what changed since. */
export type LocalScanner = (root: string, options: ScanOptions) => Promise<LocalScan>;

/**
 * The daemon's last complete scan, kept between cycles. A cycle woken by the watcher needs only the
 * files it hinted looked at again: walking 10,000 files to find the one just saved was most of the time
 * from a save to the service. Anything a hint cannot vouch for gets a full walk: a hinted path that is
 * not a file the last scan listed (a new file, a folder, an ignore file, an editor's temp file), one gone
 * or no longer a regular file, an incomplete last scan, a root replaced, other scan options, or a cycle
 * that failed. The rescan timer and every sweep walk in full too, the safety net for missed events.
 */
export class ScanCache {
  #last: { readonly scan: LocalScan; readonly key: string; readonly index: ReadonlyMap<string, number> } | undefined;
  #hinted = new Set<string>();

  /** Paths the watcher says may have changed since the last scan (relative POSIX, on-disk form). */
  hint(paths: readonly string[]): void {
    for (const rel of paths) this.#hinted.add(rel);
  }

  /** The next scan walks the whole folder. */
  invalidate(): void {
    this.#last = undefined;
  }

  /** Walks the whole folder and remembers the result. */
  readonly full: LocalScanner = async (root, options) => {
    // Hints that arrive during the walk stay for the next cycle: the walk may have passed their file already.
    this.#hinted = new Set();
    const scan = await scanLocal(root, options);
    // Where each file sits in the list, built once per walk: a hinted cycle replaces entries in place.
    this.#last = scan.complete ? { scan, key: keyOf(root, options), index: new Map(scan.files.map((file, i) => [file.path, i])) } : undefined;
    return scan;
  };

  /** The last scan with the hinted files stat'ed again, or a full walk when the hints cannot vouch for the rest. */
  readonly hinted: LocalScanner = async (root, options) => {
    const last = this.#last;
    if (!last || last.key !== keyOf(root, options) || options.fs) return this.full(root, options);
    const hinted = this.#hinted;
    this.#hinted = new Set();
    const rootStat = await assertRootDirectory(last.scan.root);
    if (rootStat.dev !== last.scan.rootDev || rootStat.ino !== last.scan.rootIno) return this.full(root, options);
    const { index } = last;
    let files: LocalFile[] | undefined; // copied on the first change: the last scan handed out stays as it was
    for (const rel of hinted) {
      const i = index.get(rel);
      // A changed image is not one of the scan's files: the cycle finds the documents showing it by their recorded images.
      if (i === undefined && isImageFile(rel) && lstatOrUndefined(path.join(last.scan.root, rel))?.isFile()) continue;
      const stat = i === undefined ? undefined : lstatOrUndefined(path.join(last.scan.root, rel));
      if (i === undefined || !stat?.isFile()) return this.full(root, options);
      files ??= [...last.scan.files];
      files[i] = { ...(files[i] as LocalFile), size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev };
    }
    if (!files) return last.scan;
    const scan: LocalScan = { ...last.scan, files };
    this.#last = { ...last, scan };
    return scan;
  };
}

const keyOf = (root: string, options: ScanOptions): string =>
  JSON.stringify([path.resolve(root), options.stateDir, options.include, options.exclude, options.folderConcurrency]);

function lstatOrUndefined(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}
