import type { KbClient } from '../api/index.js';
import type { DocumentSummary, Ledger } from '../ledger/index.js';
import { blocksHash } from '../markdown/index.js';
import type { DocKey } from '../model/ids.js';
import type { SyncOptions } from './engine.js';
import { detectMoves } from './moves.js';
import { assertSameWorkspace, observeAndPlan, workspaceRoot, type Observation } from './observe.js';
import { pathOf } from './placement.js';
import type { ActionKind, RemoteDoc } from './types.js';

/**
 * Read-only queries over a synced folder for `kbsync status` and `kbsync diff`: the same observation
 * and planner as a sync, without a single write (no ledger row, no meta key, no file, no remote change),
 * so they work on a ledger opened read-only while the daemon holds its lock.
 */
export type InspectOptions = Pick<SyncOptions, 'root' | 'stateDir' | 'workspaceId' | 'remoteFolder' | 'layout' | 'mode' | 'include' | 'exclude' | 'guards'> & {
  /** Do not call the service: remote states are 'unknown'. */
  readonly offline: boolean;
};

/** What status and diff work from: exactly what a sync would observe and plan. */
export type Inspection = Observation;

/** Observes both sides like a sync does and plans, changing nothing. `ledger` is undefined before the first sync. */
export async function inspect(deps: { readonly client: KbClient; readonly ledger: Ledger | undefined }, options: InspectOptions): Promise<Inspection> {
  const { client, ledger } = deps;
  assertSameWorkspace(ledger, options.workspaceId, false);
  return observeAndPlan(
    { client, ledger, rootId: () => workspaceRoot(client, ledger, options, false) },
    { ...options, listRemote: options.offline ? 'never' : 'always' },
  );
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
