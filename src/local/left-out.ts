import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IgnoreTree } from './ignore-tree.js';
import { IGNORE_FILE_NAME, isAlwaysIgnoredDirName } from './names.js';
import { PathFilter, type FilterOptions } from './path-filter.js';

/** Why a path is left out: `hidden` (a dot name), `excluded` (the state folder, node_modules, exclude, a .kbsyncignore). */
type LeftOutReason = { readonly kind: 'hidden' | 'excluded'; readonly detail: string };

/**
 * The rules that keep a path out of what kbsync reads, named for a report (an image in such a place, a link to
 * such a file): kbsync's state folder, a hidden file or folder, node_modules, the config's `exclude`, a
 * `.kbsyncignore`. The `.kbsyncignore` files are read on first need (the scan reads them for Markdown files only).
 */
export class LeftOut {
  readonly #root: string;
  readonly #filter: PathFilter;
  readonly #ignored = new IgnoreTree();

  constructor(root: string, options: Pick<FilterOptions, 'stateDir' | 'exclude'> = {}) {
    this.#root = root;
    this.#filter = new PathFilter(root, options);
  }

  /** The first rule that leaves out `path` (relative POSIX, inside the root), or undefined when none does. */
  why(path: string): LeftOutReason | undefined {
    const parts = path.split('/');
    const places = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    const named = (place: string): string => (place === path ? path : `its folder ${place}`);
    const hidden = places.find((place) => (place.split('/').pop() ?? '').startsWith('.'));
    if (hidden !== undefined) return { kind: 'hidden', detail: `${named(hidden)} is hidden (its name starts with a dot, like .git, .kbsync or .obsidian)` };
    const state = places.find((place) => place === this.#filter.stateDir);
    if (state !== undefined) return { kind: 'excluded', detail: `${named(state)} is kbsync's state folder` };
    const folders = places.slice(0, -1);
    const always = folders.find((folder) => isAlwaysIgnoredDirName(folder.split('/').pop() ?? ''));
    if (always !== undefined) return { kind: 'excluded', detail: `${named(always)} is one kbsync never reads` };
    for (const place of places) {
      const glob = this.#filter.excludedBy(place);
      if (glob !== undefined) return { kind: 'excluded', detail: `the config's exclude "${glob}" leaves out ${named(place)}` };
    }
    const ignored = places.find((place) => this.#ignores(place, place !== path));
    if (ignored !== undefined) return { kind: 'excluded', detail: `a ${IGNORE_FILE_NAME} leaves out ${named(ignored)}` };
    return undefined;
  }

  #ignores(path: string, isDir: boolean): boolean {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i += 1) {
      const dir = parts.slice(0, i).join('/');
      if (!this.#ignored.isKnown(dir)) this.#ignored.set(dir, readIgnoreFile(join(this.#root, dir, IGNORE_FILE_NAME)));
    }
    return this.#ignored.ignores(path, isDir);
  }
}

function readIgnoreFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
