import type { KbClient } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { DocumentSummary, Ledger } from '../ledger/index.js';
import { scanLocal, type LocalScan } from '../local/index.js';
import { blocksHash } from '../markdown/index.js';
import type { DocKey, TreeNodeId } from '../model/ids.js';
import { asTreeNodeId } from '../model/ids.js';
import type { SyncOptions } from './engine.js';
import { detectMoves } from './moves.js';
import { observeLocal, stillOnDisk, type LocalObservation } from './observe-local.js';
import { observeRemote } from './observe-remote.js';
import { plan } from './plan.js';
import { pathOf } from './placement.js';
import type { ActionKind, Plan, RecordEntry, RemoteDoc, RemoteSnapshot } from './types.js';

/**
 * Read-only queries over a synced folder for `kbsync status` and `kbsync diff`: the same observation
 * and planner as a sync, without a single write (no ledger row, no meta key, no file, no remote change),
 * so they work on a ledger opened read-only while the daemon holds its lock.
 */
export type InspectOptions = Pick<SyncOptions, 'root' | 'stateDir' | 'workspaceId' | 'remoteFolder' | 'layout' | 'mode' | 'include' | 'exclude' | 'guards'> & {
  /** Do not call the service: remote states are 'unknown'. */
  readonly offline: boolean;
};

export type Inspection = {
  readonly scan: LocalScan;
  readonly local: LocalObservation;
  readonly summaries: ReadonlyMap<string, DocumentSummary>;
  readonly records: ReadonlyMap<string, RecordEntry>;
  readonly remote: RemoteSnapshot | undefined;
  /** What a sync in `options.mode` would do now; a refused plan has no actions and names its refusal. */
  readonly plan: Plan;
};

/** Observes both sides like a sync does and plans, changing nothing. `ledger` is undefined before the first sync. */
export async function inspect(deps: { readonly client: KbClient; readonly ledger: Ledger | undefined }, options: InspectOptions): Promise<Inspection> {
  const { client, ledger } = deps;
  checkWorkspace(ledger, options);
  const scan = await scanLocal(options.root, {
    stateDir: options.stateDir,
    ...(options.include ? { include: options.include } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  });
  const summaries = new Map((ledger?.documents.allSummaries() ?? []).map((s) => [s.path, s]));
  const local = await observeLocal(scan, summaries);
  // Mirrors runSync's observation, so that status and diff show what a sync would do.
  const seen = new Set(scan.files.map((file) => file.path));
  const ignored = await stillOnDisk(scan.root, [...summaries.keys()].filter((path) => !seen.has(path)));
  const records = new Map<string, RecordEntry>();
  const leftAlone = new Set<string>();
  for (const summary of summaries.values()) {
    // As in a sync: unusable, newly ignored and unreached files prove nothing; their documents are left alone.
    if (local.excluded.has(summary.path) || ignored.has(summary.path) || (!scan.complete && !seen.has(summary.path))) {
      leftAlone.add(summary.docKey);
      continue;
    }
    records.set(summary.path, { ...summary, ino: summary.statIno });
  }
  let remote: RemoteSnapshot | undefined;
  if (!options.offline) {
    const listed = await observeRemote(client, await rootOf(client, ledger, options), options.layout, {
      docPaths: new Map([...summaries.values()].map((s) => [s.docKey, s.path])),
      folderPaths: new Map((ledger?.folders.all() ?? []).map((f) => [f.treeNodeId, f.path])),
    });
    remote = leftAlone.size > 0 ? { ...listed, docs: new Map([...listed.docs].filter(([docKey]) => !leftAlone.has(docKey))) } : listed;
  }
  const planned = plan({
    mode: options.mode,
    local: local.entries,
    records,
    remote,
    localFolders: new Set(scan.folders),
    recordedFolders: new Set((ledger?.folders.all() ?? []).map((f) => f.path)),
    occupied: new Set([...scan.skipped.map((s) => s.path), ...scan.conflictCopies.map((c) => c.path)].filter((path) => /\.md$/i.test(path))),
    layout: options.layout,
    guards: options.guards,
  });
  return { scan, local, summaries, records, remote, plan: planned };
}

export type FileState =
  | 'clean'
  | 'local-changed'
  | 'remote-changed'
  | 'diverged'
  | 'conflict'
  | 'new-local'
  | 'new-remote'
  | 'deleted-local'
  | 'deleted-remote'
  | 'unusable';

export type FileStatus = {
  readonly path: string;
  readonly state: FileState;
  /** What a two-way sync would do with it now (undefined: nothing). */
  readonly action?: ActionKind;
  readonly url?: string;
  readonly detail?: string;
};

type RemoteSide = 'unchanged' | 'changed' | 'missing' | 'unknown';

/**
 * One state per file. The remote side comes from the listing; a document whose listing cannot prove it
 * unchanged (kbsync's own write, an edit within the same minute) is read once and compared by blocks.
 */
export async function fileStates(client: KbClient, inspection: Inspection): Promise<FileStatus[]> {
  const { local, records, remote, scan, plan: planned } = inspection;
  const actions = new Map(planned.actions.map((action) => [pathOf(action), action.kind]));
  const waitingCopies = new Set(scan.conflictCopies.map((file) => file.path));
  const unrecorded = [...local.entries.values()].filter((entry) => !records.has(entry.path));
  const moves = detectMoves(
    [...records.values()].filter((record) => !local.entries.has(record.path)),
    unrecorded,
  );
  const movedTo = new Set(moves.values());
  const states: FileStatus[] = [];
  const add = (path: string, state: FileState, extra: Omit<FileStatus, 'path' | 'state' | 'action'> = {}): void => {
    const planned = actions.get(path);
    // A 'check' is the planner's "read it to know"; status has read it, so it says what the read showed.
    const action = planned === 'check' ? (state === 'remote-changed' ? 'pull' : undefined) : planned;
    states.push({ path, state, ...(action ? { action } : {}), ...extra });
  };

  await Promise.all(
    [...records.values()].map(async (record) => {
      const summary = inspection.summaries.get(record.path) as DocumentSummary;
      const to = moves.get(record.path);
      const path = to ?? record.path;
      const entry = local.entries.get(path);
      const localChanged = entry !== undefined && (to !== undefined || entry.hash !== record.localHash);
      const remoteSide = await remoteSideOf(client, summary, remote?.docs.get(record.docKey), remote !== undefined);
      const extra = { url: summary.url, ...(to ? { detail: `moved from ${record.path}` } : {}) };
      if (summary.conflict && summary.conflictPath && waitingCopies.has(summary.conflictPath)) {
        add(path, 'conflict', { url: summary.url, detail: `the other version is in ${summary.conflictPath}; merge it into the file and delete the copy` });
      } else if (!entry) add(path, remoteSide === 'missing' ? 'deleted-remote' : 'deleted-local', { ...extra, ...(remoteSide === 'missing' ? { detail: 'gone on both sides' } : {}) });
      else if (remoteSide === 'missing') add(path, 'deleted-remote', extra);
      else if (localChanged && remoteSide === 'changed') add(path, 'diverged', extra);
      else if (localChanged) add(path, 'local-changed', extra);
      else if (remoteSide === 'changed') add(path, 'remote-changed', extra);
      else add(path, 'clean', { ...extra, ...(remoteSide === 'unknown' ? { detail: 'remote not checked (offline)' } : {}) });
    }),
  );
  for (const entry of unrecorded) if (!movedTo.has(entry.path)) add(entry.path, 'new-local');
  for (const problem of local.problems) add(problem.path, 'unusable', { detail: `${problem.message} [${problem.code}]` });
  const recordedKeys = new Set<DocKey>([...inspection.summaries.values()].map((s) => s.docKey));
  for (const action of planned.actions) {
    if (action.kind === 'new-local' && !recordedKeys.has(action.remote.docKey)) add(action.path, 'new-remote', { url: action.remote.url });
  }
  return states.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function remoteSideOf(client: KbClient, summary: DocumentSummary, listed: RemoteDoc | undefined, hasListing: boolean): Promise<RemoteSide> {
  if (!hasListing) return 'unknown';
  if (!listed) return 'missing';
  if (summary.recheck || summary.remoteModifiedTime === '') {
    return blocksHash(await client.readBlocks(summary.docKey)) === summary.remoteBlocksHash ? 'unchanged' : 'changed';
  }
  return listed.modifiedTime === summary.remoteModifiedTime ? 'unchanged' : 'changed';
}

/** The remote folder synced with the root, found without writing it down (a sync remembers it; this only reads). */
async function rootOf(client: KbClient, ledger: Ledger | undefined, options: InspectOptions): Promise<TreeNodeId> {
  if (options.remoteFolder) return options.remoteFolder;
  const cached = ledger?.meta.get(`rootNodeId:${options.workspaceId}`);
  if (typeof cached === 'string' && cached !== '') return asTreeNodeId(cached);
  return (await client.getWorkspace(options.workspaceId)).rootNodeId;
}

function checkWorkspace(ledger: Ledger | undefined, options: InspectOptions): void {
  const recorded = ledger?.meta.get('workspaceId');
  if (recorded === undefined || !ledger || ledger.documents.count() === 0 || recorded === options.workspaceId) return;
  throw new SafetyError('WORKSPACE_CHANGED', `This folder was synced with workspace ${String(recorded)}, but the config now names ${options.workspaceId}.`, {
    hint: 'Put the workspaceId back, or sync the other workspace into a new folder.',
  });
}
