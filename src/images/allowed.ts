import { LeftOut, type FilterOptions } from '../local/index.js';
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
  readonly #leftOut: LeftOut;
  readonly #verdicts = new Map<string, Refusal | undefined>();

  constructor(root: string, options: Pick<FilterOptions, 'stateDir' | 'exclude'> = {}) {
    this.#leftOut = new LeftOut(root, options);
  }

  /** Why the file at `path` (relative POSIX, inside the root) is never read as an image; undefined when it may be. */
  refusal(path: string): Refusal | undefined {
    if (!this.#verdicts.has(path)) this.#verdicts.set(path, this.#judge(path));
    return this.#verdicts.get(path);
  }

  #judge(path: string): Refusal | undefined {
    const left = this.#leftOut.why(path);
    if (left) return { reason: left.kind, detail: `${left.detail}: kbsync does not read or publish what it leaves out` };
    if (!isImageFile(path)) return { reason: 'not-an-image', detail: `${path} is not an image file (by its name); kbsync publishes only images` };
    return undefined;
  }
}
