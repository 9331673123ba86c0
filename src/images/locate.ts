import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative, sep } from 'node:path';
import { locate } from '../links/resolve.js';
import { decode, isExternal, splitUrl } from '../links/url.js';
import type { LinkSite } from '../links/types.js';
import type { ImagePlaces } from './allowed.js';
import { SNIFF_BYTES, sniffImageType } from './media-type.js';
import type { ImageProblemReason } from './types.js';

/** A file named like an image whose bytes are not one (a key, a config file, a ledger renamed `.png`). */
export class NotAnImage extends Error {}

/** A local image file, as found on disk now. */
export type ImageFile = { readonly path: string; readonly size: number; readonly mtimeMs: number; readonly hash: () => string };

export type Located =
  | { readonly kind: 'external' }
  | { readonly kind: 'file'; readonly file: ImageFile }
  | { readonly kind: 'problem'; readonly reason: ImageProblemReason; readonly detail: string; readonly path?: string };

/**
 * The local files images name, resolved the way links are (relative to the file, or site-absolute) and
 * checked: inside the synced root (no `..` out of it, no symlink out of it), in a place images may come from
 * (ImagePlaces, for the path and for where a symlink leads), a regular file, within the size limit, and (as
 * it is read to be hashed) an image by its bytes. A file is hashed at most once per size and mtime.
 */
export class ImageFiles {
  readonly #hashes = new Map<string, { size: number; mtimeMs: number; hash: string | NotAnImage }>();
  #realRoot: string | undefined;

  constructor(
    private readonly root: string,
    private readonly site: LinkSite,
    private readonly maxBytes: number,
    private readonly places: ImagePlaces,
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
    const refused = this.places.refusal(path);
    if (refused) return refused;
    const absolute = join(this.root, path);
    let stat;
    try {
      stat = statSync(absolute);
    } catch {
      return { reason: 'missing', detail: `there is no file ${path}` };
    }
    if (!stat.isFile()) return { reason: 'missing', detail: `${path} is not a file` };
    const real = this.#realPath(absolute);
    if (real === undefined) return { reason: 'outside-root', detail: `${path} is a link to a file outside the synced folder` };
    const reached = real === path ? undefined : this.places.refusal(real);
    if (reached) return { reason: reached.reason, detail: `${path} is a link to ${real}, and ${reached.detail}` };
    if (stat.size > this.maxBytes) return { reason: 'too-large', detail: `${path} is ${stat.size} bytes, over images.maxBytes (${this.maxBytes})` };
    const { size, mtimeMs } = stat;
    return { path, size, mtimeMs, hash: () => this.#hash(path, absolute, size, mtimeMs) };
  }

  /** Where the file really is (symlinks followed), relative POSIX from the root; undefined when that is outside it. */
  #realPath(absolute: string): string | undefined {
    try {
      this.#realRoot ??= realpathSync(this.root);
      const real = realpathSync(absolute);
      if (!real.startsWith(this.#realRoot.endsWith(sep) ? this.#realRoot : this.#realRoot + sep)) return undefined;
      return relative(this.#realRoot, real).split(sep).join('/');
    } catch {
      return undefined;
    }
  }

  /** The file's SHA-256, read once per size and mtime; throws NotAnImage when its bytes are no image's. */
  #hash(path: string, absolute: string, size: number, mtimeMs: number): string {
    const known = this.#hashes.get(path);
    let hash = known && known.size === size && known.mtimeMs === mtimeMs ? known.hash : undefined;
    if (hash === undefined) {
      const bytes = readFileSync(absolute);
      hash = sniffImageType(bytes.subarray(0, SNIFF_BYTES)) ? createHash('sha256').update(bytes).digest('hex') : new NotAnImage(`${path} is named like an image, but its content is not one`);
      this.#hashes.set(path, { size, mtimeMs, hash });
    }
    if (hash instanceof NotAnImage) throw hash;
    return hash;
  }
}
