import type { KbClient } from '../../api/index.js';
import type { Ledger } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import type { TreeNodeId, WorkspaceId } from '../../model/ids.js';
import type { ScannedFiles, TextFile } from '../../local/index.js';
import type { Layout, RemoteSnapshot, SyncMode } from '../decide/types.js';
import type { UrlOfPath } from '../content/links.js';
import type { LoadedState, RemoteStateStore } from '../../remote-state/store.js';
import type { StateJournal } from '../state/journal.js';
import type { WebEditsPolicy } from '../decide/web-edits.js';
import type { FolderListings } from '../act/listed-again.js';

/** Everything one sync run works with. Built by the engine; steps read it and never replace it. */
export type SyncContext = {
  readonly root: string;
  readonly stateDir: string;
  readonly mode: SyncMode;
  readonly layout: Layout;
  readonly force: boolean;
  /** What a colleague's web-editor edit leaves this run free to publish over (config `merge.webEdits`). */
  readonly webEdits: WebEditsPolicy;
  /** The releases this run's plan honours (kbsync resolve --mine / --theirs), by path. */
  readonly released: ReadonlyMap<string, 'mine' | 'theirs'>;
  /** With link rewriting on: the URL of the synced document at a path. */
  readonly urlOf: UrlOfPath | undefined;
  readonly client: KbClient;
  readonly ledger: Ledger;
  readonly logger: Logger;
  readonly workspaceId: WorkspaceId;
  /** The remote folder synced with the local root (the workspace's root node unless configured). */
  readonly rootId: TreeNodeId;
  /** This run's listing of the service, when it made one. */
  readonly remote: RemoteSnapshot | undefined;
  /** Texts already read this run (by the local observation), keyed by relative path. */
  readonly texts: Map<string, TextFile>;
  /** Stat fingerprints from this run's scan, keyed by relative path (recorded for files we only read). */
  readonly scanned: ScannedFiles;
  /** Folders listed again this run, for reads long after the run's listing (listed-again.ts). */
  readonly listedAgain: FolderListings;
  /** One promise per remote folder being ensured, so concurrent creates in one folder make it once. */
  readonly folderPromises: Map<string, Promise<TreeNodeId>>;
  /** The knowledge base's shared state as this run read it, and when (undefined: not read before its actions). */
  readonly shared: LoadedState | undefined;
  /** Where the shared state is read and written (the sources of files, when a merge needs them). */
  readonly store: RemoteStateStore;
  /** A push that started without a ledger (a CI job): each write is announced in the shared state first (see announce.ts). */
  readonly announceWrites: boolean;
  /** Where each new document's creation ids go, right after the create, and announced writes (see StateJournal). */
  readonly journal: StateJournal;
  /** The run is stopping (Ctrl+C, SIGTERM): a step that has changed nothing yet does not start (see stopped.ts). */
  readonly stopping: () => boolean;
  readonly now: () => Date;
  /** The service's clock (from its answers' Date header), for minute-precision modifiedTime decisions. */
  readonly serverNow: () => Date;
};
