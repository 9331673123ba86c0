import type { Origin } from '../../ledger/index.js';
import type { CreationNodeId, DocKey, TreeNodeId } from '../../model/ids.js';
import type { SentImage } from '../../images/types.js';
import type { Held, HeldState } from './held.js';

/** Which directions a run may change. `two-way` is the default; `push` never writes local files, `pull` never writes the service. */
export type SyncMode = 'two-way' | 'push' | 'pull';

/** `folders` mirrors local folders as remote folders; `flat` keeps every document at the top, titled by its path. */
export type Layout = 'folders' | 'flat';

/** A local Markdown file as observed this run. Paths are relative to the root, POSIX separators. */
export type LocalEntry = {
  readonly path: string;
  /** sha256 of the bytes; for files whose stat fingerprint matched the ledger it is the ledger's hash (not re-read). */
  readonly hash: string;
  readonly ino: number;
  /** The title the file asks for (front matter, first heading, file name); known for new and changed files. */
  readonly title?: string;
  /**
   * What a push sends for it changed though its bytes did not: the bytes of an image its document was sent
   * with, or the dialect it is read in (dialect-switch.ts).
   */
  readonly sendChanged?: true;
};

/** What the ledger remembers of one synced document: the part the planner needs. */
export type RecordEntry = {
  readonly path: string;
  readonly docKey: DocKey;
  readonly nodeId: CreationNodeId | null;
  readonly treeNodeId: TreeNodeId;
  readonly parentTreeNodeId: TreeNodeId;
  readonly localHash: string;
  readonly ino: number;
  readonly remoteTitle: string;
  readonly remoteModifiedTime: string;
  /** What the document's blocks hashed to when both sides last agreed. */
  readonly remoteBlocksHash: string;
  /** The remote must be read again: its minute-precision modifiedTime cannot prove it did not change since. */
  readonly recheck: boolean;
  readonly origin: Origin;
  /** A decision to leave this document alone, standing while its file and document stay as they were. */
  readonly held: HeldState | null;
  /** Known from the knowledge base's shared state only: this machine has no ledger row for it yet. */
  readonly shared?: true;
  /** The images the document was last sent with. */
  readonly images?: readonly SentImage[];
  /** From the shared state: the writer's source was not the document's exact Markdown (see DocRecord `l`). */
  readonly lossy?: true;
  /** From the shared state: of a lossy source, all it lacks is formatting of words a colleague wrote (DocRecord `f`). */
  readonly formattingOnly?: true;
  /**
   * From the shared state: of a lossy source, whether the document holds an edit reads cannot show (DocRecord `hd`);
   * absent on a record of a kbsync from before `hd`, which could not tell.
   */
  readonly hidden?: boolean;
  /** From the shared state: the service's clock when that writer agreed on the version. */
  readonly agreedAt?: number;
  /** From the shared state: that writer's front matter was kept across a plain reading (DocRecord `hc`). */
  readonly headCarried?: true;
  /** From the shared state: that writer's body is its layout of a change it took in from the plain reading (DocRecord `pr`). */
  readonly readPlainly?: true;
  /**
   * From the shared state: its writer pulled the document as new and named the path from its title, knowing no record
   * of it (DocRecord `nt`): a mirror of a document someone else made, not a claim of its maker's.
   */
  readonly namedFromTitle?: true;
  /**
   * From an unverified shared state, for a document renamed in the web editor: the title the file gives it,
   * set only when its blocks, read this run, are the ones its entry recorded, so it is as that entry's writer
   * left it but for its title. See corroborated().
   */
  readonly renamedFrom?: string;
  /**
   * The document the ledger pairs this file with, which another kbsync writer replaced by this record's
   * (PlanInput.replaced): the ledger row is rebound to this one before anything else is done with it.
   */
  readonly follows?: DocKey;
  /** With `follows`: the copy of the new document this record takes the place of (Replacement `absorbs`): its row goes, its file to kbsync's trash. */
  readonly absorbs?: string;
};

/**
 * `gone`: the Markdown last synced of recorded files whose path has no file now (the ledger's, or for a run
 * without one the shared state's kept source); `added`: the text of files no record pairs.
 */
export type RenameTexts = { readonly gone: ReadonlyMap<string, string>; readonly added: ReadonlyMap<string, string> };

/** The document that stands in for one another writer replaced, and where the shared state places it. */
export type Replacement = {
  readonly docKey: DocKey;
  readonly path: string;
  readonly nodeId: CreationNodeId | null;
  readonly origin: Origin;
  /** The document's time as its writer's record says ('' when unknown): a later listed time is someone else's edit. */
  readonly modifiedTime: string;
  /**
   * The path of a file here that is a copy of the document already, pulled as a new page before its writer's
   * record said which document it replaced, unchanged since: the followed record takes its place (see follow.ts).
   */
  readonly absorbs?: string;
};

/**
 * What a file written from a document lacks of it: `lossy`, formatting or content the service's plain
 * reading does not give (an overwrite from the file would remove it); `formattingOnly`, with `lossy`: only the
 * formatting of words a colleague wrote in the web editor (config merge.webEdits decides whether that holds);
 * `hiddenEdit`, the listed time of an edit reads cannot show at all. Either holds a later overwrite until a
 * person says so.
 */
export type ReadingMarks = {
  readonly lossy: boolean;
  readonly formattingOnly?: boolean;
  readonly hiddenBase?: boolean;
  readonly hiddenEdit: string | null;
  /** The file's front matter is not known from the document's writer (DocumentSummary.headCarried). */
  readonly headCarried?: boolean;
};

export type RemoteDoc = {
  readonly docKey: DocKey;
  readonly treeNodeId: TreeNodeId;
  readonly parentTreeNodeId: TreeNodeId;
  readonly title: string;
  readonly url: string;
  readonly modifiedTime: string;
  /** Where this document lives, or would live, in the local tree (folder layout or flat titles). */
  readonly localPath: string;
  /** When its folder was listed, on the service's clock (ms; absent: not known), for a read long after (act/listed-again.ts). */
  readonly listedAt?: number;
};

export type RemoteFolder = {
  readonly treeNodeId: TreeNodeId;
  readonly parentTreeNodeId: TreeNodeId;
  readonly title: string;
  readonly localPath: string;
};

/** The complete remote tree under the synced root. A partial listing never becomes a snapshot. */
export type RemoteSnapshot = {
  readonly rootId: TreeNodeId;
  readonly docs: ReadonlyMap<DocKey, RemoteDoc>;
  readonly folders: readonly RemoteFolder[];
  /** kbsync's state folder, when the listing found one (never part of `docs` or `folders`). */
  readonly state?: { readonly folderId: TreeNodeId };
};

export type Guards = {
  readonly maxDeleteRatio: number;
  readonly maxDeletes: number;
  readonly force: boolean;
};

export type PlanInput = {
  readonly mode: SyncMode;
  readonly local: ReadonlyMap<string, LocalEntry>;
  readonly records: ReadonlyMap<string, RecordEntry>;
  /** Absent when the run did not list the service (a push with nothing new to place). */
  readonly remote: RemoteSnapshot | undefined;
  /** Local folders that exist (relative paths), so remote folders are only created locally when missing. */
  readonly localFolders: ReadonlySet<string>;
  /** Local folders the ledger has mirrored before: a remote folder kbsync already knows is never re-created locally. */
  readonly recordedFolders: ReadonlySet<string>;
  /**
   * The remote folder each local folder is mirrored by, as far as the ledger and the listing know ('' is
   * the synced root): where a document belongs, so a move that an earlier run could not finish is seen.
   */
  readonly folderIds: ReadonlyMap<string, TreeNodeId>;
  /**
   * Paths taken on disk by entries that are not synced (symlinks, special files, conflict copies): a new
   * remote document must get another name, or writing it would fail on every run.
   */
  readonly occupied?: ReadonlySet<string>;
  /**
   * Documents that creates of this machine may have made without hearing the answer (the file's path, and the
   * parent and title asked for): a remote document matching one is left for that create to find again, never
   * pulled as a new file.
   */
  readonly unconfirmedCreates?: readonly { readonly path: string; readonly parentId: TreeNodeId; readonly title: string }[];
  /**
   * Unrecorded files that an interrupted pull of this machine wrote and nobody edited since: path → the
   * document it was pulling (interrupted.ts). Never a new document: the file is that document's.
   */
  readonly interruptedPulls?: ReadonlyMap<string, DocKey>;
  /**
   * What the knowledge base's shared state knows of files this ledger has no row for, by path (identity by
   * path, not title): with the file here, the entry is its record; without it, a stateless push (no ledger
   * at all: a CI checkout) reads the file as deleted, and a run that may pull brings it back.
   */
  readonly shared?: ReadonlyMap<string, RecordEntry>;
  /** The ledger had no row at all when the run began: this run's view of the folder is the whole truth. */
  readonly stateless?: boolean;
  /** Records whose document another kbsync writer published a newer version of (the shared state says so). */
  readonly republished?: ReadonlySet<string>;
  /** The shared state is not authenticated (no state key): its entries pair only where the document corroborates them (plan.ts). */
  readonly sharedUnverified?: true;
  /**
   * Files another writer renamed since this machine last published them (the shared state holds a later
   * record of the same document at another path): path here → the path there. An unchanged file follows.
   */
  readonly renamedElsewhere?: ReadonlyMap<string, string>;
  /**
   * Records whose document is gone because another kbsync writer replaced it (a move makes a new document and
   * deletes the old; a file edited while deleted is created again), by path: the document that stands in
   * for it, listed and paired with no other record (but an unchanged copy pulled before that writer's record: see
   * Replacement `absorbs`). The record follows it, so no third document is made; an unchanged file also takes the
   * path the other writer gave it.
   */
  readonly replaced?: ReadonlyMap<string, Replacement>;
  /**
   * Records whose document is gone, and which the shared state says another kbsync writer replaced by a document
   * the listing shows (followed or not), by path → the path that writer gave the page: never created again, which
   * would make the page twice.
   */
  readonly movedAway?: ReadonlyMap<string, string>;
  /**
   * Recorded files left out of `records` because plan() has nothing to do for them (decide/settled.ts):
   * synced, unchanged, and counted as records by the guards. Only for a run that lists nothing and has
   * no unrecorded local file.
   */
  readonly settled?: ReadonlySet<string>;
  /**
   * What rename detection compares by content (decide/moves.ts), given only to a run with both recorded files
   * gone from their paths and files no record pairs: their texts by path.
   */
  readonly renameTexts?: RenameTexts;
  /** Records whose conflict copy is still there: held until a person settles them (kbsync resolve). */
  readonly openConflicts?: ReadonlySet<string>;
  /** A file whose title changed gets a new document under the new title (new URL), the old one deleted. */
  readonly retitle?: boolean;
  /**
   * The daemon's deletes wait (kbsync watch): a file deleted here has its document deleted only once its record's
   * path is in `due` (it stayed gone long enough, or the branch that removed it stayed); until then it is held
   * (DELETE_WAITING). A move to another folder deletes a document too (the service cannot move one): those in
   * `moves` (every one this run finds, in the cycle that saw a git checkout; else the records whose move waits
   * already) wait the same way until their record is due (MOVE_WAITING).
   */
  readonly deferDeletes?: DeferDeletes;
  /** A person's answers to holds (kbsync resolve --mine / --theirs), by path: honoured while they match (see `Release`). */
  readonly releases?: ReadonlyMap<string, PlanRelease>;
  readonly layout: Layout;
  readonly guards: Guards;
};

export type DeferDeletes = { readonly due: ReadonlySet<string>; readonly moves: 'all' | ReadonlySet<string> };

/**
 * One decision for one document. The executor carries it out through the queue and records its result
 * in the ledger in the same transaction that closes its intent.
 */
export type Action =
  /** A local file with no remote document: create it (in the mirrored folder) and push its body. */
  | {
      readonly kind: 'create';
      readonly path: string;
      readonly title: string;
      /** The file's own title is longer than the service takes: `title` is it, cut short. */
      readonly shortened?: true;
      /** `title` is freed by this run's delete of the document of `path`: made after it, else titled `otherwise` (placement.ts). */
      readonly afterDelete?: { readonly path: string; readonly otherwise: string };
    }
  /**
   * A local file with no record whose remote twin already exists (the document the shared state pairs with
   * its path, `known`; else one of its title): link, never duplicate.
   */
  | { readonly kind: 'adopt'; readonly path: string; readonly remote: RemoteDoc; readonly known?: RecordEntry }
  /** Local changed; the remote is believed unchanged (the executor re-reads it first and merges if not). */
  | { readonly kind: 'push'; readonly record: RecordEntry }
  /** Remote changed (or must be re-checked); local unchanged. */
  | { readonly kind: 'pull'; readonly record: RecordEntry; readonly remote: RemoteDoc }
  /** The listing cannot prove the remote unchanged (same-minute edits, our own write): read it once. */
  | { readonly kind: 'check'; readonly record: RecordEntry; readonly remote: RemoteDoc }
  /** Both sides changed since the last agreement. */
  | { readonly kind: 'merge'; readonly record: RecordEntry; readonly remote: RemoteDoc }
  /**
   * Deleted locally, unchanged remotely. `at`: where the document now is, when it was moved in the knowledge
   * base: if the read finds it edited after all, the file comes back there.
   */
  | { readonly kind: 'delete-remote'; readonly record: RecordEntry; readonly at?: string }
  /** Deleted remotely, unchanged locally: the file goes to kbsync's trash, never into the void. */
  | { readonly kind: 'trash-local'; readonly record: RecordEntry }
  /** Deleted remotely but edited locally: an edit beats a delete, so the document is created anew. */
  | { readonly kind: 'recreate'; readonly record: RecordEntry }
  /**
   * Deleted locally but edited remotely: an edit beats a delete, so the file comes back (`at`: the path of the
   * folder the document was moved to in the knowledge base, where the file comes back).
   */
  | { readonly kind: 'restore'; readonly record: RecordEntry; readonly remote: RemoteDoc; readonly at?: string }
  /** Gone on both sides: only the ledger row remains to drop. */
  | { readonly kind: 'forget'; readonly record: RecordEntry }
  /**
   * The file was renamed or moved locally (same content or same inode), or its document is not where its
   * path says (a move an earlier run could only record). `samePlace`: the document's folder and title
   * already fit the new path, so only the record follows.
   */
  | {
      readonly kind: 'move';
      readonly record: RecordEntry;
      readonly to: string;
      readonly samePlace: boolean;
      /** A new title for the new document (`--retitle`); the old title otherwise. */
      readonly title?: string;
    }
  /**
   * The document was moved to another folder in the knowledge base: the file follows, byte for byte.
   * `republished`: another writer published a version of it this record has not taken in, read after the move;
   * `edited`: the file changed here since it was last synced, so its edit is decided at the new path after the move.
   */
  | { readonly kind: 'move-local'; readonly record: RecordEntry; readonly to: string; readonly remote: RemoteDoc; readonly renamedElsewhere?: true; readonly republished?: true; readonly edited?: true }
  /**
   * Left as it is, for a reason that stands (or needs no read to know): no call until something changes.
   * `to`: where the file is now, when the hold is of a move (the record stays at its old path meanwhile).
   */
  | { readonly kind: 'held'; readonly record: RecordEntry; readonly held: Held; readonly to?: string }
  /**
   * A remote document this machine has never synced: write it as a new local file. `known`: the shared
   * state has its source, so the file comes back as it was written, not as the service's reading.
   */
  | {
      readonly kind: 'new-local';
      readonly remote: RemoteDoc;
      readonly path: string;
      readonly known?: RecordEntry;
      /** The file an interrupted pull of this document left at another path (the document's path changed since): trashed once this one is written. */
      readonly leftover?: string;
    }
  /**
   * The file an interrupted pull left (exactly as kbsync wrote it, never recorded) of a document deleted in the
   * knowledge base since: kbsync's own copy of what nobody has any more, so it goes to kbsync's trash, never
   * into a new document (that would undo the delete).
   */
  | { readonly kind: 'trash-leftover'; readonly path: string; readonly docKey: DocKey }
  /** A file the shared state knows, unchanged on both sides: this machine records the pairing, with no call. */
  | { readonly kind: 'relink'; readonly record: RecordEntry }
  /** A remote folder with no local folder yet. */
  | { readonly kind: 'new-local-folder'; readonly folder: RemoteFolder };

export type ActionKind = Action['kind'];

/**
 * What a file's sync comes to, in the words every report uses (JSON keeps them): the action's own tag, but for
 * the actions a person would name otherwise (an adopt links; a relink and a check, when all is well, do
 * nothing), and what only the reads can decide (nothing to do, a conflict, a move that only renames). The run
 * carries out exactly this; `diff`, `sync --dry-run`, `status` and the daemon print it. Derived, so a new
 * action is a new decision, and the exhaustive word tables do not compile until it has its words.
 */
export type DecisionKind = Exclude<ActionKind, 'adopt' | 'relink' | 'check'> | 'link' | 'none' | 'conflict' | 'rename';

/** Why a plan was refused as a whole: nothing in it is carried out. */
export type Refusal = {
  readonly code: 'MASS_DELETE' | 'EMPTY_LOCAL' | 'EMPTY_REMOTE';
  readonly message: string;
};

/** Something a person should know about a file that changes nothing by itself (said once per change). */
export type Notice = { readonly path: string; readonly code: 'TITLE_KEPT' | 'STATE_FOLDER_SHARED' | 'STATE_UNAUTHENTICATED' | 'STATE_JUNK' | 'FRONT_MATTER_LENIENT' | 'BUDGET_LOW' | 'BUDGET_SPENT'; readonly message: string };

/**
 * A person's answer to a hold on one file: `mine` decides it as --force would (that file alone), `theirs` drops
 * what is held and reads the document again. It stands while the file hashes to `localHash` ('' when gone) and,
 * where the run lists the service, the document's time is `remoteTime` ('' when unknown).
 */
export type PlanRelease = { readonly side: 'mine' | 'theirs'; readonly localHash: string; readonly remoteTime: string };

export type Plan = {
  readonly actions: readonly Action[];
  /** Files found renamed or moved here, old path → new (by inode, bytes or content), whatever the plan does with them. */
  readonly moved?: ReadonlyMap<string, string>;
  /** The releases this plan honours, by path; those it does not (the file or document changed since) are in `voidReleases`. */
  readonly released?: ReadonlyMap<string, PlanRelease['side']>;
  readonly voidReleases?: readonly string[];
  /** Documents whose state is only reported (a pull-mode run that leaves a local edit for later). */
  readonly pending: readonly { readonly path: string; readonly reason: string }[];
  readonly notices: readonly Notice[];
  readonly refusal: Refusal | undefined;
};
