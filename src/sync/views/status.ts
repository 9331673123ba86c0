import { heldMessage } from '../decide/held.js';
import type { DocKey } from '../../model/ids.js';
import { plannedKind } from './assess.js';
import { bodyOf } from '../run/detail.js';
import { movedAfterDocument } from '../decide/moves.js';
import { compare, pathOf } from '../decide/placement.js';
import { sideOfLocal } from '../decide/plan.js';
import type { Previewed } from './decisions.js';
import type { Inspection } from './inspect.js';
import type { Action, DecisionKind } from '../decide/types.js';

export type FileState =
  | 'clean'
  | 'local-changed'
  | 'remote-changed'
  | 'diverged'
  | 'conflict'
  | 'held'
  | 'new-local'
  | 'new-remote'
  | 'deleted-local'
  | 'deleted-remote'
  | 'unusable';

export type FileStatus = {
  readonly path: string;
  /** Where the file was, when it moved (here, or after its document) and a sync records or carries out the move. */
  readonly from?: string;
  readonly state: FileState;
  /** What a two-way sync would do with it now: the run's own decision (undefined: nothing). */
  readonly action?: DecisionKind;
  /** Why it is held (a code from decide/held.ts). */
  readonly reason?: string;
  readonly url?: string;
  readonly detail?: string;
};

/**
 * One state per file, beside the decision a sync would carry out for it (the same decision: see
 * `inspect`). Offline, decisions that need a read are shown as planned, and the remote as unknown.
 */
export function fileStates(inspection: Inspection): FileStatus[] {
  const { local, records, remote, scan, plan: planned } = inspection;
  const decided = new Map<string, Previewed>((inspection.decisions ?? planned.actions.map((action) => ({ path: pathOf(action), kind: plannedKind(action) }))).map((d) => [d.path, d]));
  const waitingCopies = new Set(scan.conflictCopies.map((file) => file.path));
  const unrecorded = [...local.entries.values()].filter((entry) => !records.has(entry.path));
  const moves = planned.moved ?? new Map<string, string>();
  const movedTo = new Set(moves.values());
  const states: FileStatus[] = [];
  const add = (path: string, state: FileState, extra: Omit<FileStatus, 'path' | 'state' | 'action' | 'reason'> = {}): void => {
    const decision = decided.get(path);
    const action = decision && decision.kind !== 'none' ? decision.kind : undefined;
    const hold = decision?.assessment?.held;
    const why = (hold ? heldMessage(hold, path) : undefined) ?? decision?.note ?? (decision?.error ? `${decision.error.message} [${decision.error.code}]` : undefined);
    states.push({
      path,
      // An open conflict is held too, but "conflict" says more: which kind of hold, and that a person settles it.
      state: action === 'held' && state !== 'conflict' ? 'held' : state,
      ...(action ? { action } : {}),
      ...(decision?.reason ? { reason: decision.reason } : {}),
      ...extra,
      ...(why ? { detail: why } : {}),
    });
  };

  // Files the run moves after their documents (moved in the web editor, or renamed by another machine): shown
  // at the path the run gives them, as the preview names them.
  const followed = new Map<string, Extract<Action, { kind: 'move-local' }>>();
  for (const action of planned.actions) if (action.kind === 'move-local') followed.set(action.record.path, action);
  for (const record of records.values()) {
    const to = moves.get(record.path);
    const following = to === undefined ? followed.get(record.path) : undefined;
    const entry = local.entries.get(to ?? record.path);
    const path = to ?? following?.to ?? record.path;
    const summary = inspection.summaries.get(record.path);
    const listed = remote?.docs.get(record.docKey);
    // A move here is said by `from`; one after the document says why the file follows.
    const moved = following ? movedAfterDocument(record.path, following.renamedElsewhere === true) : undefined;
    const extra = { ...(path !== record.path ? { from: record.path } : {}), ...(summary ? { url: summary.url } : {}), ...(moved ? { detail: moved } : {}) };
    if (summary?.conflict && summary.conflictPath && waitingCopies.has(summary.conflictPath)) {
      add(path, 'conflict', { ...extra, detail: `the other version is in ${summary.conflictPath}; run \`kbsync resolve ${path}\` (or merge it by hand and delete the copy)` });
      continue;
    }
    // The planner's own view of the file (its bytes, or an image it was sent with), not one derived again here; but
    // bytes an interrupted run of this machine wrote there are no change of the user's (the decision says so).
    const localChanged = entry !== undefined && (to !== undefined || (sideOfLocal(record, entry) === 'changed' && !ownWrite(decided.get(path), entry.hash !== record.localHash)));
    const remoteSide = !remote ? 'unknown' : !listed ? 'missing' : following || remoteChanged(decided.get(path), listed.modifiedTime !== record.remoteModifiedTime) ? 'changed' : 'unchanged';
    if (!entry) add(path, remoteSide === 'missing' ? 'deleted-remote' : 'deleted-local', extra);
    else if (remoteSide === 'missing') add(path, 'deleted-remote', extra);
    else if (localChanged && remoteSide === 'changed') add(path, 'diverged', extra);
    else if (localChanged) add(path, 'local-changed', extra);
    else if (remoteSide === 'changed') add(path, 'remote-changed', extra);
    else add(path, 'clean', { ...extra, ...(remoteSide === 'unknown' ? { detail: inspection.offline ? 'remote not checked (offline)' : 'remote not listed (a push lists only what it must)' } : {}) });
  }
  // A file moved from a path the shared state alone knows (a checkout without a ledger): its record is the plan's.
  for (const [from, to] of moves) if (!records.has(from)) add(to, 'local-changed', { detail: `moved from ${from}` });
  // A copy an interrupted pull left of a document deleted since is no new file: its document is gone.
  for (const entry of unrecorded) if (!movedTo.has(entry.path)) add(entry.path, decided.get(entry.path)?.kind === 'trash-leftover' ? 'deleted-remote' : 'new-local');
  for (const problem of local.problems) add(problem.path, 'unusable', { detail: `${problem.message} [${problem.code}]` });
  const recordedKeys = new Set<DocKey>([...inspection.summaries.values()].map((s) => s.docKey));
  for (const action of planned.actions) {
    if (action.kind === 'new-local' && !recordedKeys.has(action.remote.docKey)) add(action.path, 'new-remote', { url: action.remote.url });
  }
  return states.sort((a, b) => compare(a.path, b.path));
}

/**
 * The file's bytes are not as recorded, yet the decision found no local change: it was made on the file as it stood
 * before an interrupted run's own write to it (interrupted.ts fileBeforeOwnWrite), a pull to finish, not a divergence.
 */
function ownWrite(decision: Previewed | undefined, bytesChanged: boolean): boolean {
  const detail = decision?.assessment?.detail;
  const applied = detail && bodyOf(detail);
  return bytesChanged && applied !== undefined && !applied.body.localChanged;
}

/** The remote changed: as its body showed (when the decision read it), else as the listing says. */
function remoteChanged(decision: Previewed | undefined, listingSaysChanged: boolean): boolean {
  const detail = decision?.assessment?.detail;
  const applied = detail && bodyOf(detail);
  return applied ? applied.body.remoteChanged : listingSaysChanged;
}
