import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, sep } from 'node:path';
import { locate } from '../links/resolve.js';
import { decode, isExternal, splitUrl } from '../links/url.js';
import type { LinkSite } from '../links/types.js';
import type { ImageProblemReason } from './types.js';

/** A local image file, as found on disk now. */
export type ImageFile = { readonly path: string; readonly size: number; readonly mtimeMs: number; readonly hash: () => string };

export type Located =
  | { readonly kind: 'external' }
  | { readonly kind: 'file'; readonly file: ImageFile }
  | { readonly kind: 'problem'; readonly reason: ImageProblemReason; readonly detail: string; readonly path?: string };

/**
 * The local files images name, resolved the way links are (relative to the file, or site-absolute) and
 * checked: inside the synced root (no `..` out of it, no symlink out of it), a regular file, within the size
 * limit. A file is hashed at most once per size and mtime.
 */
export class ImageFiles {
  readonly #hashes = new Map<string, { size: number; mtimeMs: number; hash: string }>();
  #realRoot: string | undefined;

  constructor(
    private readonly root: string,
    private readonly site: LinkSite,
    private readonly maxBytes: number,
  ) {}

  locate(url: string, from: string): Located {
    const written = url.trim();
    if (written === '' || isExternal(written)) return { kind: 'external' };
    const decoded = decode(splitUrl(written).path);
    if (decoded === undefined || decoded === '') return { kind: 'problem', reason: 'malformed', detail: `"${written}" is not a file path kbsync can read` };
    const located = locate(decoded, from, this.site);
    if ('outside' in located) return { kind: 'problem', reason: 'outside-root', detail: `${located.outside}; kbsync publishes only images inside it` };
    const file = this.file(located.path);
    return 'reason' in file ? { kind: 'problem', ...file, path: located.path } : { kind: 'file', file };
  }

  /** The file at `path` (relative to the root) now, or why it cannot be published. */
  file(path: string): ImageFile | { readonly reason: ImageProblemReason; readonly detail: string } {
    const absolute = join(this.root, path);
    let stat;
    try {
      stat = statSync(absolute);
    } catch {
      return { reason: 'missing', detail: `there is no file ${path}` };
    }
    if (!stat.isFile()) return { reason: 'missing', detail: `${path} is not a file` };
    if (!this.#inside(absolute)) return { reason: 'outside-root', detail: `${path} is a link to a file outside the synced folder` };
    if (stat.size > this.maxBytes) return { reason: 'too-large', detail: `${path} is ${stat.size} bytes, over images.maxBytes (${this.maxBytes})` };
    const { size, mtimeMs } = stat;
    return { path, size, mtimeMs, hash: () => this.#hash(path, absolute, size, mtimeMs) };
  }

  #inside(absolute: string): boolean {
    try {
      this.#realRoot ??= realpathSync(this.root);
      const real = realpathSync(absolute);
      return real.startsWith(this.#realRoot.endsWith(sep) ? this.#realRoot : this.#realRoot + sep);
    } catch {
      return false;
    }
  }

  #hash(path: string, absolute: string, size: number, mtimeMs: number): string {
    const known = this.#hashes.get(path);
    if (known && known.size === size && known.mtimeMs === mtimeMs) return known.hash;
    const hash = createHash('sha256').update(readFileSync(absolute)).digest('hex');
    this.#hashes.set(path, { size, mtimeMs, hash });
    return hash;
  }
}
