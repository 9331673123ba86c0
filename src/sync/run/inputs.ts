import type { KbClient } from '../../api/index.js';
import type { BackupRetention } from '../../local/index.js';
import type { Ledger } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import type { LinkSite } from '../../links/index.js';
import type { ImageSettings } from '../../images/types.js';
import type { StateKeySource } from '../../setup/state-key.js';
import type { TeamSetting } from '../../config/index.js';
import type { ActionResult } from './executor.js';
import type { ObserveOptions } from '../observe/observe.js';
import type { WebEditsPolicy } from '../decide/web-edits.js';

export type SyncOptions = Omit<ObserveOptions, 'listRemote' | 'settledTree'> & {
  readonly dryRun: boolean;
  readonly links: boolean;
  /** How the docs site addresses the files (site-absolute links). Default: the synced root at `/`. */
  readonly site?: LinkSite;
  /** Where local images are published (config `images`). Default: nowhere, and said (IMAGE_NOT_PUBLISHED). */
  readonly images?: ImageSettings;
  /** Report the broken links of every synced file, and send nothing when there is one. */
  readonly checkLinks?: boolean;
  /**
   * When to list the remote tree. 'always' (default for two-way and pull) lists it every run. 'if-needed'
   * (default for push; the daemon's local cycles) lists it only when new local files must be checked for
   * remote twins; otherwise the remote is taken as unchanged, which is safe because every write re-reads
   * the remote first (rule 3) and merges, and nothing is deleted locally without a listing.
   */
  readonly listRemote?: 'always' | 'if-needed';
  readonly onResult?: (result: ActionResult) => void;
  /** The number of actions planned, and how many of them only re-read a document to confirm it unchanged. */
  readonly onPlanned?: (count: number, checks: number) => void;
  /** Stops the run between actions (Ctrl+C, SIGTERM): what was done is recorded and reported, the rest waits for the next run. */
  readonly signal?: AbortSignal;
  /** How many backups of replaced bodies are kept; applied after each run that changed something. */
  readonly backups?: BackupRetention;
  /** The team's state key (config `state.key`): the shared state is signed and verified with it. */
  readonly stateKey?: StateKeySource;
  /** What a colleague's web-editor edit leaves kbsync free to publish over (config `merge.webEdits`; default `merge`). */
  readonly webEdits?: WebEditsPolicy;
  /** The team settings the configuration gives itself; the run follows the team's published value of the others (state/team.ts). */
  readonly explicit?: readonly TeamSetting[];
};

export type SyncDeps = { readonly client: KbClient; readonly ledger: Ledger; readonly logger: Logger; readonly now?: () => Date };

/** One sync run as every phase sees it: what it was given, and where its clock and call count started (for its report). */
export type Run = {
  readonly deps: SyncDeps;
  readonly options: SyncOptions;
  readonly started: number;
  readonly callsBefore: number;
};

export const startRun = (deps: SyncDeps, options: SyncOptions): Run => ({ deps, options, started: Date.now(), callsBefore: deps.client.queue.stats().totals.calls });
