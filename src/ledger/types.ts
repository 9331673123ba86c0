import type { Block } from '../model/blocks.js';
import type { CreationNodeId, DocKey, TreeNodeId, UserId, WorkspaceId } from '../model/ids.js';

/** Any value that survives JSON.stringify → JSON.parse unchanged. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A member as last applied to a document (members are managed through the creation nodeId). */
export type MemberRecord = { readonly userId: UserId; readonly role: string };

/**
 * The cheap part of a document row: everything a no-op sync compares, nothing that needs JSON parsing.
 * Paths are relative to the sync root with POSIX separators.
 */
export type DocumentSummary = {
  readonly path: string;
  readonly docKey: DocKey;
  /** The creation nodeId; null when the document was adopted or pulled (we cannot delete it or manage members). */
  readonly nodeId: CreationNodeId | null;
  readonly treeNodeId: TreeNodeId;
  readonly workspaceId: WorkspaceId;
  readonly parentTreeNodeId: TreeNodeId;
  readonly url: string;
  readonly remoteTitle: string;
  /** sha256 (hex) of the file bytes last synced. */
  readonly localHash: string;
  readonly statSize: number;
  readonly statMtimeMs: number;
  readonly statIno: number;
  readonly remoteBlocksHash: string;
  /** modifiedTime exactly as the service gave it. */
  readonly remoteModifiedTime: string;
  /** When this row was last written by a sync (ms since epoch). */
  readonly syncedAt: number;
  /** The remote must be re-read next cycle (e.g. minute-precision modifiedTime cannot prove no edit happened). */
  readonly recheck: boolean;
  readonly conflict: boolean;
  readonly conflictPath: string | null;
  /** How the document came to be linked with the file: only a document kbsync created can be deleted by it. */
  readonly origin: Origin;
  /**
   * A decision to leave this document as it is (a code the sync step defines), taken when the file had
   * `heldLocalHash` ('' when missing) and the listing said `heldRemoteTime`; null when nothing is held.
   */
  readonly heldCode: string | null;
  readonly heldLocalHash: string | null;
  readonly heldRemoteTime: string | null;
  /** Hash of this row's record as last published in the knowledge base's shared state; null: never published. */
  readonly publishedRecord: string | null;
  /** Hash of the source (the file text last synced) last published there; null: never. */
  readonly publishedSource: string | null;
  /** The images the document was last sent with (JSON of src/images' SentImage list); null or absent: none. */
  readonly imagesSent: string | null;
  /**
   * The title the listing showed when this version was agreed on, when it was not `remoteTitle` (renamed in
   * the web editor: the file keeps its name, and `remoteTitle` the title kbsync gave); null: that title.
   */
  readonly listedTitle: string | null;
  /**
   * When this machine last put the file at its path by a move (its own, or following its document's move in
   * the knowledge base), on the shared state's clock (remote-state/clock.ts); 0: never moved here. Another
   * writer's record of the document at an older place is older than this, and moves nothing back.
   */
  readonly placedAt: number;
  /**
   * The document holds more than the base says (`lossyBase`, or a `hiddenEdit` stands): what the shared state
   * says of it (`l`), so a change of it is published like any other. Kept by the ledger from the body's fields.
   */
  readonly inexact: boolean;
  /**
   * Of an inexact document, all that is unknown is formatting a colleague gave words they wrote in the web editor
   * (`formattingOnly`, no hidden edit): the shared state says so (`f`). Kept by the ledger from the body's fields.
   */
  readonly inexactFormatting: boolean;
  /**
   * Of an inexact document, what it holds beyond the base is an edit reads cannot show (a `hiddenEdit` stands, or
   * the base is another writer's version whose record said so: `hiddenBase`), not a visible edit taken in as plain
   * text: the shared state says so (`hd`). Kept by the ledger from the body's fields.
   */
  readonly inexactHidden: boolean;
  /**
   * The base's front matter (what only the shared state carries) was kept from before a plain reading of a change
   * to the document that no writer's record explained yet: it says nothing of what that writer's file held there.
   * Published as `hc`; another writer's exact record of the very blocks read then says more (decide/body.ts).
   */
  readonly headCarried: boolean;
  /**
   * The file's path was chosen here, from the document's title, when it was pulled as new with no writer's record
   * of it known (a document another machine had just made, listed before that machine's record came, or one a
   * colleague made). Published as `nt`: the path its creator's record gives it stands over this one, whichever
   * was published first, and this machine follows it. Any move of the file here ends it.
   */
  readonly namedHere: boolean;
  /**
   * The base's body is this machine's Markdown of a change it took in from the service's plain reading, and nothing
   * of it was written here since: its layout is this machine's writer's, not the source's. Published as `pr`: the
   * exact record of that change's own writer, of the very blocks and made from the same version, says more, and this
   * machine takes its text (remote-state/state.ts, decide/body.ts).
   */
  readonly readPlainly: boolean;
};

export const ORIGINS = ['created', 'create-answer-lost', 'linked', 'pulled'] as const;
/** created: by kbsync, its creation nodeId known; create-answer-lost: by kbsync, the answer (and nodeId) lost; linked: paired with an existing document; pulled: written locally from a remote document. */
export type Origin = (typeof ORIGINS)[number];

/** The large, lazily parsed part of a document row. */
export type DocumentBody = {
  /** The full file text as last synced, front matter included. */
  readonly baseMarkdown: string;
  /** The blocks as read back after that sync (the remote side's "last synced", rule 8). */
  readonly remoteBlocks: readonly Block[];
  /** Base top-level nodes ⇄ remote-base blocks, produced and interpreted by src/markdown only. */
  readonly alignment: JsonValue;
  readonly members: readonly MemberRecord[];
  /** While a conflict is open: the text its clash was found against (kbsync resolve shows it as the base; BodyDecision.conflictBase). */
  readonly conflictBase: string | null;
  /** Right after this machine wrote the document: the body it held before that write (see markdown/published.ts). */
  readonly publishedOver: string | null;
  /** The listed modifiedTime at which an edit of what the service does not show (code, tables) was seen; null: none. */
  readonly hiddenEdit: string | null;
  /** The base is the service's plain-text reading, not a source: overwriting from it would flatten the document. */
  readonly lossyBase: boolean;
  /**
   * With `lossyBase`: the base lacks only the formatting a colleague gave words they wrote in the web editor, on a
   * page a read shows whole (the words themselves are known): config merge.webEdits decides whether it holds.
   */
  readonly formattingOnly: boolean;
  /**
   * With `lossyBase`: the base is another writer's version whose record said the document holds an edit reads
   * cannot show (`hd`), which this machine did not see itself: passed on as that (`inexactHidden`).
   */
  readonly hiddenBase: boolean;
  /** The service's clock (ms) when this version (text and document) was agreed on; 0: unknown. */
  readonly agreedAt: number;
  /**
   * The front matter this machine's own last change of it replaced ('' none), kept while the base's front matter
   * is that change; null: none made here since another writer's was taken. Another writer's version that still
   * has it was made without seeing that change (decide/body.ts).
   */
  readonly replacedHead: string | null;
  /**
   * The version this one was made from (the sha256 of its source, as `localHash` is of this one's), when the run
   * that agreed on this one knew the document to hold exactly that version when it read it: its own last one, or
   * another writer's it took in. null: not known so. Published as `b` (remote-state/records.ts): two versions made
   * from the same one, neither knowing the other, are merged against it (decide/body.ts, a stale overwrite).
   */
  readonly builtOn: string | null;
};

/** One synced document: the last state both sides agreed on. */
export type DocumentRecord = DocumentSummary & DocumentBody;

/**
 * The narrowest read of a row, for every row of a large ledger on every push: the stat fingerprint and hash
 * the fast path compares, where the document sits, and whether the row holds anything that asks for a decision.
 */
export type DocumentStat = Pick<DocumentSummary, 'path' | 'localHash' | 'statSize' | 'statMtimeMs' | 'statIno' | 'parentTreeNodeId' | 'remoteTitle'> & {
  /** The row has a creation nodeId (kbsync created the document, so it may move it). */
  readonly created: boolean;
  /** The row holds a hold, a conflict or the images its document was sent with: only its full summary can say what they mean. */
  readonly marked: boolean;
};

/** Fields `documents.update` may change; the path changes only through `rename`, and `inexact` follows the body. */
export type DocumentPatch = Partial<Omit<DocumentRecord, 'path' | 'inexact' | 'inexactFormatting' | 'inexactHidden'>>;

/** What `documents.upsert` writes: a whole record, but for what the ledger derives from it. */
export type DocumentWrite = Omit<DocumentRecord, 'inexact' | 'inexactFormatting' | 'inexactHidden'> & {
  readonly inexact?: boolean;
  readonly inexactFormatting?: boolean;
  readonly inexactHidden?: boolean;
};

/** A local folder ('' is the sync root) ⇄ a remote folder node. */
export type FolderRecord = {
  readonly path: string;
  readonly treeNodeId: TreeNodeId;
  /** Creation nodeId; null when the folder was adopted rather than created by kbsync. */
  readonly nodeId: CreationNodeId | null;
  readonly remoteTitle: string;
};

declare const intentBrand: unique symbol;
/** Row id of an intent in the journal. */
export type IntentId = number & { readonly [intentBrand]: 'IntentId' };

/** An intent written before a side effect and not yet closed: after a crash, the engine reconciles these first. */
export type OpenIntent = {
  readonly id: IntentId;
  /** Chosen by the engine: 'create', 'overwrite', 'delete', 'pull', 'write-local', ... */
  readonly kind: string;
  /** A path or a docKey. */
  readonly subject: string;
  readonly payload: JsonValue;
  /** ms since epoch. */
  readonly createdAt: number;
  /** The process that wrote it. */
  readonly pid: number;
};

/** What the lock file beside the ledger says about the process holding it. */
export type LockHolder = {
  readonly pid: number;
  readonly hostname: string;
  /** ms since epoch. */
  readonly startedAt: number;
  readonly command: string;
};

/**
 * Where a reader of the kept rows' changes stands (SummaryCache.changesSince): the read of all rows it saw, and how
 * many re-read rows since it took. Here, not beside the cache, so that the package's declarations of the ledger
 * reach no database driver's types.
 */
export type SummaryCursor = { readonly generation: number; readonly taken: number };
