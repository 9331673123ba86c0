import { isDeepStrictEqual } from 'node:util';
import type { Ledger } from '../../ledger/index.js';
import { pruneBackups } from '../../local/index.js';
import { pathOf } from '../decide/placement.js';
import type { ActionResult } from './executor.js';
import { minuteOf } from '../state/minutes.js';
import type { LocalProblem } from '../observe/observe-local.js';
import type { Observation } from '../observe/observe.js';
import { rememberListing } from '../state/list-next.js';
import { rememberDialect } from '../content/dialect-switch.js';
import { markPublished, neverPublished, publishAndMaintain } from '../state/run.js';
import { crashPoint } from './crash-points.js';
import { rememberRefusals } from '../observe/refusals.js';
import { stateSeen, stateSeenKey } from '../state/seen.js';
import type { Decision } from './decide-phase.js';
import type { Run } from './inputs.js';
import type { Observed } from './observe-phase.js';
import type { TeamRecord } from '../../remote-state/records.js';

/**
 * Record: what the run leaves for the next one, once its actions are done (each action recorded its own
 * result with its intent): the stats of touched files, releases spent, holds ended, interrupted work
 * reconciled, the shared state published, that state seen, old backups pruned, the settled tree.
 * Returns the problems of publishing the shared state.
 */
export async function record(run: Run, observed: Observed, decision: Decision, results: readonly ActionResult[]): Promise<LocalProblem[]> {
  const { deps, options } = run;
  const { ledger, logger } = deps;
  const { observation, interrupted, rootId, store, migrating } = observed;
  const { local } = observation;
  let stateProblems: LocalProblem[] = [];
  // Bytes unchanged, stat changed (a touch, a checkout): record the stat so the fast path holds next time.
  ledger.transaction(() => {
    for (const file of local.touched) {
      if (ledger.documents.summary(file.path)) ledger.documents.update(file.path, { statSize: file.size, statMtimeMs: file.mtimeMs, statIno: file.ino });
    }
  });
  closeReleases(ledger, observation, results);
  keepLearntIds(ledger, observation);
  if (!options.signal?.aborted) rememberRefusals(ledger, local.problems, observation.scan.files);
  endStaleHolds(ledger, observation);
  if (!options.signal?.aborted) rememberListing(ledger, observation.remote !== undefined, results);
  if (!options.signal?.aborted && options.mode !== 'pull') rememberDialect(ledger, options.vault, observation.dialectOwed ?? new Set(), results);
  const allDone = !options.signal?.aborted && results.every((result) => result.ok);
  if (allDone) for (const intent of interrupted) ledger.intents.abandon(intent.id, 'reconciled by the next run');
  if (!options.signal?.aborted) {
    // A run that finished an interrupted one's work publishes what that run was killed before publishing: the
    // writes it finds landed are only recorded here ('unchanged'), and the state would keep those files' old
    // records until a later run happened to read it (which, with nothing to do, then appended them).
    const wrote = interrupted.length > 0 || results.some((result) => result.ok && result.result !== 'unchanged');
    crashPoint('before-publish');
    const team = { published: (held: TeamRecord | undefined, bound: boolean) => observed.team.published(options, held, bound), remember: (record: TeamRecord) => observed.team.remember(record) };
    stateProblems = await publishAndMaintain({ ledger, store, logger, rootId, team }, { loaded: observed.shared(), wrote, pulled: results.some((result) => result.ok && (result.result === 'pulled' || result.result === 'merged')), migrating, owed: observed.owed });
    // Only when it changes: any write to the meta drops the settled-tree fingerprint.
    if (stateProblems.length === 0 && neverPublished(ledger)) markPublished(ledger);
  }
  if (allDone && observation.stateSeen !== undefined) {
    // Everything the state said was acted on: it need not be read again until it changes, and this run's own
    // appends are no change to read back (unless another writer's showed up beside them).
    const now = decision.ctx.serverNow();
    const fingerprint = store.wrote ? store.fingerprintAfterWrites(minuteOf(now.getTime())) : observation.stateSeen;
    const seen = fingerprint === undefined ? undefined : stateSeen(fingerprint, now);
    if (seen !== undefined && !isDeepStrictEqual(ledger.meta.get(stateSeenKey(rootId)), seen)) ledger.meta.set(stateSeenKey(rootId), seen);
  }
  if (options.backups && results.some((result) => !result.ok || result.result !== 'unchanged')) {
    const pruned = await pruneBackups(options.stateDir, options.backups);
    if (pruned.files > 0) logger.debug({ ...pruned }, `removed ${pruned.files} backup(s) past the retention`);
  }
  // A run that reconciled interrupted work changed the ledger its plan was made from.
  if (!options.signal?.aborted && interrupted.length === 0) recordSettledTree(ledger, observation, results);

  return stateProblems;
}

/**
 * Creation ids this run's plan learnt from the team's verified shared state, for documents another machine made that
 * this ledger paired before that machine's record of the id came (it listed them at once): kept, so a later run that
 * has no reason to read the state again (unchanged) still holds the id that deletes the document (convergence soak
 * 735: the file's delete was held NOT_CREATED for good, and said to be a person's to do in the web editor).
 */
function keepLearntIds(ledger: Ledger, observation: Observation): void {
  ledger.transaction(() => {
    for (const [path, record] of observation.records) {
      if (record.shared || record.nodeId === null) continue;
      const row = ledger.documents.summary(path);
      if (row?.docKey === record.docKey && row.nodeId === null) ledger.documents.update(path, { nodeId: record.nodeId, origin: record.origin });
    }
  });
}

/**
 * A hold recorded for a file this plan did not hold, nor act on, has ended without an action (a deleted file
 * came back, an emptied one got its text back): it is forgotten, so nothing lists it as waiting any more.
 */
function endStaleHolds(ledger: Ledger, observation: Observation): void {
  const acted = new Set(observation.plan.actions.flatMap((action) => ('record' in action ? [action.record.path] : [])));
  for (const [path, record] of observation.records) {
    if (record.shared || !record.held || record.held.code === 'CONFLICT_OPEN' || acted.has(path)) continue;
    ledger.documents.update(path, { heldCode: null, heldLocalHash: null, heldRemoteTime: null });
  }
}

/**
 * A release (kbsync resolve) is spent once its file was acted on (or needed nothing), and void once its file
 * or document changed (the plan said so): both are removed. One whose action failed, or did not start (a
 * stopped run), stays for the next run.
 */
function closeReleases(ledger: Ledger, observation: Observation, results: readonly ActionResult[]): void {
  if (observation.releases.length === 0) return;
  const honoured = observation.plan.released ?? new Map<string, string>();
  const planned = new Set(observation.plan.actions.map(pathOf));
  const done = new Set(results.filter((result) => result.ok).map((result) => result.path));
  for (const release of observation.releases) {
    const waiting = honoured.has(release.path) && planned.has(release.path) && !done.has(release.path);
    if (!waiting) ledger.releases.done(release.path, release.requestedAt);
  }
}

/**
 * A run that found every file settled and then planned, reported and did nothing records its scan's
 * fingerprint: the next push with the same scan takes that nothing without reading a row (observe/settled-tree.ts).
 * Anything the ledger then records drops it again.
 */
function recordSettledTree(ledger: Ledger, observation: Observation, results: readonly ActionResult[]): void {
  const tree = observation.settledTree;
  if (!tree || tree.recorded || results.length > 0) return;
  const { actions, pending, notices, refusal } = observation.plan;
  if (actions.length > 0 || pending.length > 0 || notices.length > 0 || refusal) return;
  ledger.settledTree.record(tree.fingerprint);
}
