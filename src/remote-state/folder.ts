import { isConflict, isOutcomeUnknown, isNotFound, type KbClient, type RemoteNode } from '../api/index.js';
import type { DocKey, TreeNodeId, WorkspaceId } from '../model/ids.js';
import { bySeq, parseTitle, STATE_FOLDER, stateDocOf, type StateDoc } from './documents.js';
import type { StateKey } from './token.js';

/** Where the last run found the state folder (kept in the ledger): a run that finds it there lists no root. */
export type FolderCache = { read(): string | undefined; write(id: string): void };

/**
 * The state folder and the documents in it, as this run last listed them: which of them count (trust), the
 * documents this writer made, and what else the folder holds. Listing is what everything else reads by, so
 * it happens once unless a caller asks for a fresh one; what this run writes is remembered in the listing.
 */
export class StateFolder {
  readonly #client: KbClient;
  readonly #workspaceId: WorkspaceId;
  readonly #rootId: TreeNodeId;
  readonly #key: StateKey | undefined;
  readonly #cache: FolderCache | undefined;
  readonly #now: () => number;
  #folderId: TreeNodeId | undefined;
  /** The root was listed, so an undefined folder means there is none (no need to look again). */
  #searched = false;
  #docs: StateDoc[] | undefined;
  #listedAt = 0;
  #foreign: string[] = [];
  /** The index documents' listed times when the state was last read (or first listed): what this run knows. */
  #baseline: ReadonlyMap<string, string> | undefined;
  /** Documents this writer made this run: appends may go to them before any state lists them. */
  readonly #made = new Map<string, string | null>();

  constructor(deps: {
    readonly client: KbClient;
    readonly workspaceId: WorkspaceId;
    readonly rootId: TreeNodeId;
    readonly key: StateKey | undefined;
    readonly cache: FolderCache | undefined;
    readonly now: () => number;
  }) {
    this.#client = deps.client;
    this.#workspaceId = deps.workspaceId;
    this.#rootId = deps.rootId;
    this.#key = deps.key;
    this.#cache = deps.cache;
    this.#now = deps.now;
  }

  /** The documents as last listed (and written since); undefined when not listed. */
  get listed(): readonly StateDoc[] | undefined {
    return this.#docs;
  }

  /** Not listed, or listed more than `ms` ago. */
  olderThan(ms: number): boolean {
    return this.#docs === undefined || this.#now() - this.#listedAt > ms;
  }

  /** What else the state folder holds (someone's own folder that happens to share its name): never synced, and said. */
  get foreign(): readonly string[] {
    return this.#foreign;
  }

  /** The state folder as the run's listing saw it (undefined: there is none yet). */
  seen(folderId: TreeNodeId | undefined): void {
    this.#folderId = folderId;
    this.#searched = true;
  }

  /** Creation ids of state documents this writer made (this run). */
  get made(): ReadonlyMap<string, string | null> {
    return this.#made;
  }

  /**
   * A document counts when it can be kbsync's: with a key, only documents whose title the key signs (a
   * reader with the key reads nothing else); without one, every document with a state title but the form
   * only a kbsync with a key gives (which a load either refuses to write beside, or leaves out: read.ts).
   */
  trusted(doc: StateDoc): boolean {
    if (this.#made.has(doc.docKey)) return true;
    const signed = parseTitle(doc.title, this.#key)?.signed;
    return this.#key ? signed === 'signed' : signed !== undefined && signed !== 'keyed';
  }

  /** The state was read by the listing as it is now: later listings are compared with it (changedSinceRead). */
  markRead(): void {
    this.#baseline = timesOf(this.#docs ?? []);
  }

  /**
   * Whether a listing made since the state was read (or first listed) shows an index document that changed,
   * came or went, but those in `own` (this run's writes): another writer's records this run has not read.
   */
  changedSinceRead(own: ReadonlySet<string>): boolean {
    const baseline = this.#baseline;
    if (!baseline) return false;
    const now = timesOf(this.#docs ?? []);
    const other = (docKey: string): boolean => !own.has(docKey) && !this.#made.has(docKey);
    return [...now].some(([docKey, time]) => other(docKey) && baseline.get(docKey) !== time) || [...baseline.keys()].some((docKey) => other(docKey) && !now.has(docKey));
  }

  /** Forgets what this run listed: the next look lists the state folder again. */
  forget(): void {
    this.#docs = undefined;
  }

  /** A document as this run now knows it (read or written), in place of what the listing said. */
  remember(doc: StateDoc): void {
    if (this.#docs) this.#docs = [...this.#docs.filter((d) => d.docKey !== doc.docKey), doc].sort(bySeq);
  }

  /** The documents this run read, in place of their listed selves. */
  rememberRead(docs: readonly StateDoc[]): void {
    this.#docs = this.#docs?.map((doc) => docs.find((read) => read.docKey === doc.docKey) ?? doc);
  }

  async list(fresh = false): Promise<StateDoc[]> {
    if (this.#docs && !fresh) return this.#docs;
    // The folder the last run found (kept by the ledger) saves listing the root; if it is gone, the root is listed.
    const remembered = this.#folderId === undefined && !this.#searched ? this.#cache?.read() : undefined;
    let folder = this.#folderId ?? (remembered as TreeNodeId | undefined) ?? (this.#searched ? undefined : await this.#findFolder());
    this.#searched = true;
    let children = folder ? await this.#children(folder) : [];
    if (children === undefined && remembered !== undefined) {
      folder = await this.#findFolder();
      children = folder ? await this.#children(folder) : [];
    }
    this.#folderId = children === undefined ? undefined : folder;
    if (this.#folderId !== undefined && this.#folderId !== remembered) this.#cache?.write(this.#folderId);
    this.#docs = (children ?? []).flatMap((node) => stateDocOf(node) ?? []).sort(bySeq);
    this.#baseline ??= timesOf(this.#docs);
    this.#listedAt = this.#now();
    this.#foreign = (children ?? []).filter((node) => !stateDocOf(node)).map((node) => node.title);
    return this.#docs;
  }

  /** The state folder's children; undefined when the folder is gone (deleted by hand since it was found). */
  async #children(folder: TreeNodeId): Promise<RemoteNode[] | undefined> {
    const children: RemoteNode[] = [];
    try {
      for await (const node of this.#client.listNodes(folder)) children.push(node);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return undefined;
    }
    return children;
  }

  async #findFolder(): Promise<TreeNodeId | undefined> {
    for await (const node of this.#client.listNodes(this.#rootId)) if (node.type === 'FOLDER' && node.title === STATE_FOLDER) return node.treeNodeId;
    return undefined;
  }

  /** The state folder, made if there is none. */
  async ensure(): Promise<TreeNodeId> {
    if (!this.#folderId && !this.#searched) this.#folderId = await this.#findFolder();
    this.#searched = true;
    if (this.#folderId) return this.#folderId;
    try {
      const made = await this.#client.createDocument(this.#workspaceId, { name: STATE_FOLDER, parentNodeId: this.#rootId, folder: true });
      this.#folderId = made.treeNodeId;
      this.#cache?.write(made.treeNodeId);
    } catch (error) {
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      const found = await this.#findFolder();
      if (!found) throw error;
      this.#folderId = found;
    }
    return this.#folderId;
  }

  /**
   * Makes a state document in the folder (ensure), remembered as this writer's and listed at once. Its
   * creation id is null when the answer was lost and the document found by its title.
   */
  async create(folder: TreeNodeId, doc: Omit<StateDoc, 'docKey'>): Promise<{ doc: StateDoc; nodeId: string | null }> {
    const created = await this.#create(folder, doc.title);
    this.#made.set(created.docKey, created.nodeId);
    const made: StateDoc = { ...doc, docKey: created.docKey };
    this.#docs = [...(this.#docs ?? []), made].sort(bySeq);
    return { doc: made, nodeId: created.nodeId };
  }

  async #create(folder: TreeNodeId, title: string): Promise<{ docKey: DocKey; nodeId: string | null }> {
    try {
      const created = await this.#client.createDocument(this.#workspaceId, { name: title, parentNodeId: folder });
      return { docKey: created.docKey, nodeId: created.nodeId };
    } catch (error) {
      // The answer was lost: the title is this writer's alone (its nonce), so the document found under it is this one.
      if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
      for await (const node of this.#client.listNodes(folder)) if (node.title === title && node.docKey) return { docKey: node.docKey, nodeId: null };
      throw error;
    }
  }
}

/** Each index document's listed modified time. */
const timesOf = (docs: readonly StateDoc[]): Map<string, string> => new Map(docs.filter((doc) => doc.family === 'state').map((doc) => [doc.docKey, doc.modifiedTime ?? '']));
