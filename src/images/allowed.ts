import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IGNORE_FILE_NAME, IgnoreTree, PathFilter, type FilterOptions } from '../local/index.js';
import { isImageFile } from './media-type.js';
import type { ImageProblemReason } from './types.js';

type Refusal = { readonly reason: ImageProblemReason; readonly detail: string };

/**
 * Where an image may come from. A Markdown file (written by anyone who can edit the knowledge base, since a
 * pull writes what they wrote) can name any file under the root as an image; images.upload then publishes
 * it. So only a file the synced folder shows as an image is ever read or uploaded: never one in a hidden
 * folder (`.git`, `.kbsync`, `.ssh`…) or a hidden file, kbsync's state folder, `node_modules`, a path the
 * configuration's `exclude` or a `.kbsyncignore` leaves out, or a file whose name is not an image's. Its bytes
 * are checked as they are read (ImageFiles).
 */
export class ImagePlaces {
  readonly #root: string;
  readonly #filter: PathFilter;
  readonly #ignored = new IgnoreTree();
  readonly #verdicts = new Map<string, Refusal | undefined>();

  constructor(root: string, options: Pick<FilterOptions, 'stateDir' | 'exclude'> = {}) {
    this.#root = root;
    this.#filter = new PathFilter(root, options);
  }

  /** Why the file at `path` (relative POSIX, inside the root) is never read as an image; undefined when it may be. */
  refusal(path: string): Refusal | undefined {
    if (!this.#verdicts.has(path)) this.#verdicts.set(path, this.#judge(path));
    return this.#verdicts.get(path);
  }

  #judge(path: string): Refusal | undefined {
    const parts = path.split('/');
    if (parts.some((part) => part.startsWith('.'))) {
      return { reason: 'hidden', detail: `${path} is hidden (a file or folder whose name starts with a dot, like .git or .kbsync): kbsync never reads or publishes those` };
    }
    const folders = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
    const excludedFolder = folders.find((folder) => this.#filter.dirIgnored(folder) || this.#ignores(folder, true));
    if (excludedFolder !== undefined || this.#filter.fileExcluded(path) || this.#ignores(path, false)) {
      const where = excludedFolder === undefined ? path : `its folder ${excludedFolder}`;
      return { reason: 'excluded', detail: `${where} is not synced (kbsync's state folder, node_modules, exclude or a .kbsyncignore), so kbsync does not read or publish it` };
    }
    if (!isImageFile(path)) return { reason: 'not-an-image', detail: `${path} is not an image file (by its name); kbsync publishes only images` };
    return undefined;
  }

  /** The `.kbsyncignore` rules of `path`'s folders, read on first need (the scan reads them for Markdown files only). */
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
