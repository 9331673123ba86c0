import type { LocalScanner } from '../../local/index.js';
import type { TreeNodeId, WorkspaceId } from '../../model/ids.js';
import type { DeferDeletes, Guards, Layout, SyncMode } from '../decide/types.js';
import type { VaultSettings } from '../../vault/settings.js';
import type { BaselineMemo } from './local-baseline.js';

/** What a run asks of observing: its folder, its service side, its mode and its limits. */
export type ObserveOptions = {
  readonly root: string;
  readonly stateDir: string;
  readonly workspaceId: WorkspaceId;
  readonly remoteFolder?: TreeNodeId | undefined;
  readonly layout: Layout;
  readonly mode: SyncMode;
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
  /** The folder is a note vault (config `markdown.dialect`): its files are read, and sent, in the wiki dialect (src/vault). */
  readonly vault?: VaultSettings | undefined;
  readonly guards: Guards;
  /** Replace documents whose file asks for a new title with new documents under it (`--retitle`). */
  readonly retitle?: boolean;
  /** kbsync watch: deletes of files gone here, and moves a checkout made, wait until their path is due (PlanInput.deferDeletes). */
  readonly deferDeletes?: DeferDeletes;
  /** List the service always, only when new local files need their remote twin looked up, or never (offline). */
  readonly listRemote: 'always' | 'if-needed' | 'never';
  /** Told what the run is doing while nothing else shows (a listing of thousands of folders takes minutes). */
  readonly onPhase?: (phase: ObservePhase) => void;
  /** Lists the folder (default: a full walk); the daemon's scan cache re-stats only what the watcher hinted. */
  readonly scanner?: LocalScanner;
  /** The daemon's per-file work of its last local cycle (local-baseline.ts): a cycle works out again only what changed. */
  readonly baselines?: BaselineMemo;
  /**
   * May a push whose scan matches the ledger's settled-tree fingerprint (settled-tree.ts) take the empty plan
   * it stands for, without reading a row? Only a run that needs nothing of the settled files but their plan:
   * not --check-links, which reads every file.
   */
  readonly settledTree?: boolean;
};

/** What observing is busy with: the local scan, then the listing (folders listed so far, of about how many the ledger knows). */
export type ObservePhase = { readonly step: 'scanning' } | { readonly step: 'listing'; readonly folders: number; readonly expected: number | undefined };

/**
 * What a sync lists of the knowledge base: a push only what it must (a new file, a document it does not know),
 * unless this ledger never told the shared state what it holds (it reads and tells it now); any other mode,
 * all of it. Previews (`status`, `diff`) list as the run would, so they decide from the same facts.
 */
export const listingFor = (mode: SyncMode, migrating: boolean): 'always' | 'if-needed' => (mode === 'push' && !migrating ? 'if-needed' : 'always');
