import type { KbClient } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { DocumentSummary, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { scanLocal } from '../local/index.js';
import type { TreeNodeId, WorkspaceId } from '../model/ids.js';
import { asTreeNodeId } from '../model/ids.js';
import type { SyncContext } from './context.js';
import { execute, type ActionResult } from './executor.js';
import { observeLocal, stillOnDisk } from './observe-local.js';
import { observeRemote } from './observe-remote.js';
import { plan } from './plan.js';
import { pathOf } from './placement.js';
import { buildReport, type SyncReport } from './report.js';
import type { Guards, Layout, RecordEntry, SyncMode } from './types.js';

export type SyncOptions = {
  readonly root: string;
  readonly stateDir: string;
  readonly workspaceId: WorkspaceId;
  /** Sync under this remote folder instead of the workspace's root. */
  readonly remoteFolder?: TreeNodeId | undefined;
  readonly layout: Layout;
  readonly mode: SyncMode;
  readonly dryRun: boolean;
  readonly links: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly guards: Guards;
  /**
   * When to list the remote tree. 'always' (default for two-way and pull) lists it every run. 'if-needed'
   * (default for push; the daemon's local cycles) lists it only when new local files must be checked for
   * remote twins; otherwise the remote is taken as unchanged, which is safe because every write re-reads
   * the remote first (rule 3) and merges, and nothing is deleted locally without a listing.
   */
  readonly listRemote?: 'always' | 'if-needed';
  readonly onResult?: (result: ActionResult) => void;
  readonly onPlanned?: (count: number) => void;
};

export type SyncDeps = { readonly client: KbClient; readonly ledger: Ledger; readonly logger: Logger; readonly now?: () => Date };

/**
 * One sync cycle. Data flows one way: observe both sides, decide in the pure planner against the
 * ledger, act through the queue, record each result with its intent. Intents left open by an
 * interrupted run are reconciled by this very cycle: it observes both sides afresh, and the steps
 * recognise work already done (a body already there, a document already created) instead of repeating it.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncReport> {
  const { client, ledger, logger } = deps;
  const started = Date.now();
  const callsBefore = client.queue.stats().totals.calls;
  checkWorkspace(ledger, options.workspaceId);
  const interrupted = ledger.intents.open();
  if (interrupted.length > 0) {
    logger.warn({ intents: interrupted.map((i) => `${i.kind} ${i.subject}`) }, 'a previous run was interrupted during %d operations; reconciling them first', interrupted.length);
  }

  const scan = await scanLocal(options.root, {
    stateDir: options.stateDir,
    ...(options.include ? { include: options.include } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  });
  const summaries = new Map(ledger.documents.allSummaries().map((s) => [s.path, s]));
  const local = await observeLocal(scan, summaries);
  const seen = new Set(scan.files.map((file) => file.path));
  const ignored = await stillOnDisk(scan.root, [...summaries.keys()].filter((path) => !seen.has(path)));
  const records = new Map<string, RecordEntry>();
  /** Documents whose file is left out of this run: their remote side must not look new (it would be pulled over the file). */
  const leftAlone = new Set<string>();
  for (const summary of summaries.values()) {
    // A partial scan proves nothing about the files it did not see (rule 4): leave those alone this time.
    if (local.excluded.has(summary.path) || ignored.has(summary.path) || (!scan.complete && !seen.has(summary.path))) {
      leftAlone.add(summary.docKey);
      continue;
    }
    records.set(summary.path, recordEntryOf(summary));
  }

  const hasUnrecorded = [...local.entries.keys()].some((path) => !summaries.has(path));
  const listRemote = options.listRemote ?? (options.mode === 'push' ? 'if-needed' : 'always');
  const needRemote = listRemote === 'always' || hasUnrecorded;
  const rootId = await resolveRoot(client, ledger, options);
  const listed = needRemote
    ? await observeRemote(client, rootId, options.layout, {
        docPaths: new Map([...summaries.values()].map((s) => [s.docKey, s.path])),
        folderPaths: new Map(ledger.folders.all().map((f) => [f.treeNodeId, f.path])),
      })
    : undefined;
  const remote = listed && leftAlone.size > 0 ? { ...listed, docs: new Map([...listed.docs].filter(([docKey]) => !leftAlone.has(docKey))) } : listed;

  const planned = plan({
    mode: options.mode,
    local: local.entries,
    records,
    remote,
    localFolders: new Set(scan.folders),
    recordedFolders: new Set(ledger.folders.all().map((f) => f.path)),
    occupied: new Set([...scan.skipped.map((s) => s.path), ...scan.conflictCopies.map((c) => c.path)].filter((path) => /\.md$/i.test(path))),
    layout: options.layout,
    guards: options.guards,
  });
  if (planned.refusal) throw new SafetyError(planned.refusal.code, planned.refusal.message);
  options.onPlanned?.(planned.actions.length);

  let results: ActionResult[] = [];
  if (!options.dryRun) {
    const ctx: SyncContext = {
      root: scan.root,
      stateDir: options.stateDir,
      mode: options.mode,
      layout: options.layout,
      force: options.guards.force,
      links: options.links,
      client,
      ledger,
      logger,
      workspaceId: options.workspaceId,
      rootId,
      remote,
      texts: local.texts,
      scanned: new Map(scan.files.map((file) => [file.path, file])),
      folderPromises: new Map(),
      now: deps.now ?? (() => new Date()),
      serverNow: () => client.serverTime() ?? new Date(),
    };
    results = await execute(ctx, planned.actions, options.onResult ? { onResult: options.onResult } : {});
    // Bytes unchanged, stat changed (a touch, a checkout): record the stat so the fast path holds next time.
    ledger.transaction(() => {
      for (const file of local.touched) {
        if (ledger.documents.summary(file.path)) ledger.documents.update(file.path, { statSize: file.size, statMtimeMs: file.mtimeMs, statIno: file.ino });
      }
    });
    if (results.every((result) => result.ok)) {
      for (const intent of interrupted) ledger.intents.abandon(intent.id, 'reconciled by the next run');
    }
  }

  return buildReport({
    options,
    planned: planned.actions.map((action) => ({ kind: action.kind, path: pathOf(action) })),
    pending: planned.pending,
    results,
    problems: [...local.problems, ...scan.problems.map((p) => ({ path: p.path, code: p.code, message: p.reason }))],
    conflictCopies: scan.conflictCopies.map((file) => file.path),
    skipped: scan.skipped,
    resumed: interrupted.length,
    calls: client.queue.stats().totals.calls - callsBefore,
    endpointCalls: client.queue.stats().endpoints,
    durationMs: Date.now() - started,
  });
}

function recordEntryOf(summary: DocumentSummary): RecordEntry {
  return {
    path: summary.path,
    docKey: summary.docKey,
    nodeId: summary.nodeId,
    treeNodeId: summary.treeNodeId,
    parentTreeNodeId: summary.parentTreeNodeId,
    localHash: summary.localHash,
    ino: summary.statIno,
    remoteTitle: summary.remoteTitle,
    remoteModifiedTime: summary.remoteModifiedTime,
    recheck: summary.recheck,
  };
}

const rootKey = (options: Pick<SyncOptions, 'workspaceId'>): string => `rootNodeId:${options.workspaceId}`;

/** The remote folder synced with the root: configured, or the workspace's root node (asked once, then remembered). */
async function resolveRoot(client: KbClient, ledger: Ledger, options: SyncOptions): Promise<TreeNodeId> {
  if (options.remoteFolder) return options.remoteFolder;
  const cached = ledger.meta.get(rootKey(options));
  if (typeof cached === 'string' && cached !== '') return asTreeNodeId(cached);
  const workspace = await client.getWorkspace(options.workspaceId);
  ledger.meta.set(rootKey(options), workspace.rootNodeId);
  return workspace.rootNodeId;
}

/** A folder synced with one workspace must not silently switch to another: every document would look deleted. */
function checkWorkspace(ledger: Ledger, workspaceId: WorkspaceId): void {
  const recorded = ledger.meta.get('workspaceId');
  if (recorded === undefined || ledger.documents.count() === 0) {
    ledger.meta.set('workspaceId', workspaceId);
    return;
  }
  if (recorded !== workspaceId) {
    throw new SafetyError(
      'WORKSPACE_CHANGED',
      `This folder was synced with workspace ${String(recorded)}, but the config now names ${workspaceId}. Nothing was done.`,
      { hint: 'Put the workspaceId back, or sync the other workspace into a new folder (or move the state folder aside to start over).' },
    );
  }
}
