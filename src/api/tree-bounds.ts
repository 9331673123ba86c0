import { quoted } from '../printable.js';
import { ApiError } from './errors.js';
import { SERVICE_LIMITS } from './limits.js';

/** A title or id from the listing, as a message quotes it. */
const shown = (text: string): string => quoted(text, SERVICE_LIMITS.quotedChars / 3);

/**
 * The bounds of one walk of the remote tree. The service says which nodes a folder holds, and nothing
 * stops a broken or hostile one from listing a folder inside itself (or inside its own child), nesting
 * folders without end, or inventing nodes page after page. A walk that meets any of these is refused
 * whole, after a bounded number of calls: a refused listing is a failed one, and a failed listing never
 * deletes anything (DESIGN rule 4).
 */
export class TreeBounds {
  readonly #entered = new Set<string>();
  #nodes = 0;

  constructor(rootId: string) {
    this.#entered.add(rootId);
  }

  /** One node listed: past SERVICE_LIMITS.listingNodes the walk is refused. */
  counted(): void {
    this.#nodes += 1;
    if (this.#nodes > SERVICE_LIMITS.listingNodes) {
      throw refused(`holds more than ${SERVICE_LIMITS.listingNodes} nodes, the most kbsync lists`, 'If the knowledge base really is that large, sync a folder of it (remoteFolder) instead of all of it.');
    }
  }

  /** Before a folder's children are listed: `depth` is 1 for a folder at the root. */
  enter(folderId: string, title: string, depth: number): void {
    if (this.#entered.has(folderId)) {
      throw refused(`lists the folder "${shown(title)}" (${shown(folderId)}) twice: it contains itself or one of its own parents`, 'Such a tree cannot be synced; move the folder out of itself in the web editor, or report it to the service.');
    }
    if (depth > SERVICE_LIMITS.listingDepth) {
      throw refused(`nests folders more than ${SERVICE_LIMITS.listingDepth} deep (at "${shown(title)}")`, 'Flatten the folders in the web editor, or sync a folder further down (remoteFolder).');
    }
    this.#entered.add(folderId);
  }
}

function refused(what: string, hint: string): ApiError {
  return new ApiError('API_BAD_RESPONSE', `The knowledge base's tree, as the service lists it, ${what}; the listing was refused.`, { endpoint: 'listNodes' }, {
    hint: `Nothing was deleted or changed on account of it. ${hint}`,
  });
}
