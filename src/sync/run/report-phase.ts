import { forgetParseTrees } from '../../markdown/parse.js';
import { oneLine } from '../../printable.js';
import { STATE_FOLDER } from '../../remote-state/store.js';
import { compare } from '../decide/placement.js';
import { shown } from '../views/decisions.js';
import type { ActionResult } from './executor.js';
import type { LocalProblem } from '../observe/observe-local.js';
import { buildReport, linkCheckReport, type SyncReport } from '../views/report.js';
import { imagesToUpload } from '../content/images.js';
import { stateNotices } from '../state/run.js';
import { withRepeats } from '../observe/refusals.js';
import type { Decision } from './decide-phase.js';
import type { Run } from './inputs.js';
import type { Observed } from './observe-phase.js';

/** What acting and recording leave for the report: each action's result, and the problems of publishing the shared state. */
type Outcome = { readonly results: readonly ActionResult[]; readonly stateProblems: readonly LocalProblem[] };

/** The outcome of a run that stopped after deciding. */
export const NOTHING_DONE: Outcome = { results: [], stateProblems: [] };

/**
 * Report: what the run did, or (stopped after deciding) what it would do, with what it found on the way
 * and what it cost.
 */
export function report(run: Run, observed: Observed, decision: Decision, outcome: Outcome): SyncReport {
  const { deps, options } = run;
  const { client } = deps;
  const { observation, store, images, interrupted } = observed;
  const { scan, local, plan: planned } = observation;
  const { results, stateProblems } = outcome;
  // In the plan's order (by path), as the preview lists it: actions run side by side and finish in any order.
  const done = [...results].sort((a, b) => compare(a.path, b.path));
  const decided = decision.preview ?? done.map((result) => ({ path: result.path, kind: result.action, ...(result.ok && result.reason ? { reason: result.reason } : {}) }));
  const links = decision.links();
  // The run's parse trees are ~30× their texts: free them now (what was learnt of them stays, bounded).
  forgetParseTrees();
  return buildReport({
    options,
    planned: shown(decided),
    pending: planned.pending,
    notices: [
      ...local.notices,
      ...planned.notices,
      ...stateNotices(store, observation.sharedUsed === true),
      ...store.foreign().slice(0, 20).map((title) => ({
        path: `${STATE_FOLDER}/${title}`,
        code: 'STATE_FOLDER_SHARED' as const,
        message: `"${oneLine(title)}" is in the ${STATE_FOLDER} folder at the synced root, which is kbsync's own (its state): it is not synced and kbsync leaves it alone. Move it to another folder to sync it.`,
      })),
    ],
    results,
    problems: [...withRepeats(local.problems, scan.files, decision.refusalsSaid), ...scan.problems.map((p) => ({ path: p.path, code: p.code, message: p.reason })), ...stateProblems],
    conflictCopies: scan.conflictCopies.map((file) => file.path),
    skipped: scan.skipped,
    links,
    ...(decision.linkCheck ? { linkCheck: linkCheckReport(decision.linkCheck, false) } : {}),
    images: decision.imageProblems,
    imageUploads: options.dryRun ? imagesToUpload(images, decision.sent) : images.uploaded,
    noteEmbeds: decision.noteEmbeds,
    resumed: interrupted.length,
    interrupted: options.signal?.aborted === true,
    calls: client.queue.stats().totals.calls - run.callsBefore,
    endpointCalls: client.queue.stats().endpoints,
    durationMs: Date.now() - run.started,
  });
}
