import { readFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { IgnoreTree } from './ignore-tree.js';
import { IGNORE_FILE_NAME, isAlwaysIgnoredDirName, isTransientFileName } from './names.js';
import { PathFilter, type FilterOptions } from './path-filter.js';
import { toPosix } from './paths.js';

/**
 * The scanner's ignore rules for a watcher, which asks synchronously about one path at a time and
 * often without knowing whether it is a file or a folder. `.kbsyncignore` files are read on first
 * need (one small synchronous read per folder) and again when they change.
 */
export class WatchRules {
  readonly #root: string;
  readonly #filter: PathFilter;
  readonly #tree = new IgnoreTree();

  constructor(root: string, options: FilterOptions) {
    this.#root = root;
    this.#filter = new PathFilter(root, options);
  }

  /** Relative POSIX path of an absolute path, or null when it is outside the root. */
  relative(abs: string): string | null {
    const rel = toPosix(path.relative(this.#root, abs));
    if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return null;
    return rel;
  }

  /** For chokidar's `ignored`: true only when the path is ignored whatever its type turns out to be. */
  ignoredForWatch(abs: string, stats?: Stats): boolean {
    const rel = this.relative(abs);
    if (rel === null) return true;
    if (rel === '') return false;
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (name === IGNORE_FILE_NAME) return false; // watched so that rule changes are noticed
    if (stats?.isDirectory()) return this.ignoresDir(rel);
    if (stats?.isFile()) return this.ignoresFile(rel);
    // Type unknown: only what is ignored both as a file and as a folder (a folder `notes` does not match `**/*.md`).
    return (isAlwaysIgnoredDirName(name) || isTransientFileName(name)) && this.ignoresDir(rel);
  }

  ignoresDir(rel: string): boolean {
    const key = rel.normalize('NFC');
    return this.#filter.dirIgnored(key) || this.#treeIgnores(rel, true) || this.#ancestorIgnored(rel);
  }

  ignoresFile(rel: string): boolean {
    return this.#treeIgnores(rel, false) || this.#filter.fileVerdict(rel.normalize('NFC')) === 'ignored' || this.#ancestorIgnored(rel);
  }

  /** A `.kbsyncignore` changed: forget its rules so the next question reads them again. */
  ignoreFileChanged(dirRel: string): void {
    this.#tree.forget(dirRel.normalize('NFC'));
  }

  #ancestorIgnored(rel: string): boolean {
    for (let slash = rel.lastIndexOf('/'); slash > 0; slash = rel.lastIndexOf('/', slash - 1)) {
      const dir = rel.slice(0, slash);
      if (this.#filter.dirIgnored(dir.normalize('NFC')) || this.#treeIgnores(dir, true)) return true;
    }
    return false;
  }

  #treeIgnores(rel: string, isDir: boolean): boolean {
    this.#loadAncestors(rel);
    return this.#tree.ignores(rel.normalize('NFC'), isDir);
  }

  #loadAncestors(rel: string): void {
    let slash = -1;
    do {
      const dir = slash === -1 ? '' : rel.slice(0, slash);
      const key = dir.normalize('NFC');
      if (!this.#tree.isKnown(key)) this.#tree.set(key, readIgnoreFile(path.join(this.#root, dir, IGNORE_FILE_NAME)));
      slash = rel.indexOf('/', slash + 1);
    } while (slash !== -1);
  }
}

function readIgnoreFile(abs: string): string | null {
  try {
    return readFileSync(abs, 'utf8');
  } catch {
    // Missing is the usual case; unreadable rules are reported by the next scan.
    return null;
  }
}
