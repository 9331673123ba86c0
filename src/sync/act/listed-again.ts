import type { KbClient } from '../../api/index.js';
import type { DocKey, TreeNodeId } from '../../model/ids.js';
import type { RemoteDoc } from '../decide/types.js';

/**
 * How old a listing may be when a run reads what it listed, and still stand for the time of that read. Within it a
 * save between the listing and the read is the seconds' window every listing has; past it, a long run (a first
 * clone, a slow queue) reads pages minutes after it listed them, and a colleague's save in between, shown by the
 * read, was recorded with the listing's older minute: the next listing's later one, every block the same, was said
 * HIDDEN_EDIT of a page nobody had edited where reads cannot see (soaks 743, 744).
 */
export const LISTING_STANDS_MS = 60_000;

/** Was `doc` listed more than LISTING_STANDS_MS before `now` (the service's clock)? A listing of unknown time: no. */
export const listingAged = (doc: RemoteDoc, now: Date): boolean => doc.listedAt !== undefined && now.getTime() - doc.listedAt > LISTING_STANDS_MS;

/** A document's time as a later listing of its folder gave it (undefined: not in that folder any more), and when. */
type ListedAgain = { readonly modifiedTime: string | undefined; readonly at: number };

type FolderListing = { readonly at: number; readonly times: Promise<ReadonlyMap<DocKey, string>> };

/**
 * Folders listed again during one run, for documents whose first listing had aged by their read. One listing of the
 * folder (a call per 50 documents) answers for every document in it read within LISTING_STANDS_MS after it, where
 * asking each document its time would cost a call a note on a long clone.
 */
export class FolderListings {
  readonly #kept = new Map<TreeNodeId, FolderListing>();

  constructor(
    private readonly client: KbClient,
    private readonly serverNow: () => Date,
  ) {}

  /** `doc`'s time in a listing of its folder made no earlier than LISTING_STANDS_MS before `readAt`: the kept one, or a new one. */
  async timeOf(doc: RemoteDoc, readAt: number): Promise<ListedAgain> {
    const kept = this.#kept.get(doc.parentTreeNodeId);
    const listing = kept !== undefined && kept.at >= readAt - LISTING_STANDS_MS ? kept : this.#listAgain(doc.parentTreeNodeId);
    return { modifiedTime: (await listing.times).get(doc.docKey), at: listing.at };
  }

  #listAgain(folder: TreeNodeId): FolderListing {
    const listing = { at: this.serverNow().getTime(), times: this.#timesIn(folder) };
    this.#kept.set(folder, listing);
    // A failed listing is not kept: the next document asks again, and this one's caller sees the error.
    listing.times.catch(() => this.#kept.get(folder) === listing && this.#kept.delete(folder));
    return listing;
  }

  async #timesIn(folder: TreeNodeId): Promise<ReadonlyMap<DocKey, string>> {
    const times = new Map<DocKey, string>();
    for await (const node of this.client.listNodes(folder)) if (node.docKey) times.set(node.docKey, node.modifiedTime);
    return times;
  }
}
