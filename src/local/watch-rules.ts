import { readFileSync } from 'node:fs';
import path from 'node:path';
import { IgnoreTree } from './ignore-tree.js';
import { IGNORE_FILE_NAME } from './names.js';
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

  /** The state folder as a relative POSIX path when it lies inside the root, else null. */
  stateDirRelative(): string | null {
    return this.#filter.stateDir;
  }

  /** Relative POSIX path of an absolute path, or null when it is outside the root. */
  relative(abs: string): string | null {
    const rel = toPosix(path.relative(this.#root, abs));
    if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return null;
    return rel;
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
