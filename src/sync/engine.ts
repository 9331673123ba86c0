import type { SyncReport } from './views/report.js';
import { startRun, type SyncDeps, type SyncOptions } from './run/inputs.js';
import { observe } from './run/observe-phase.js';
import { decide } from './run/decide-phase.js';
import { act } from './run/act-phase.js';
import { record } from './run/record-phase.js';
import { NOTHING_DONE, report } from './run/report-phase.js';

export type { SyncDeps, SyncOptions } from './run/inputs.js';

/**
 * One sync cycle, in phases (src/sync/run/), each handing the next a record of what it found:
 * - observe: both sides, and the pure planner's plan against the ledger (a plan the guards refuse stops here);
 * - decide: the links gate and rewriter, the images the sent bodies lack, the context the actions run in;
 * - act: through the queue, each step recording its result with its intent;
 * - record: what the ledger and the shared state keep for the next run;
 * - report.
 * A dry run (and a run that --check-links stops) returns after deciding: it acts and records nothing (the
 * dry run's ledger is an in-memory snapshot, setup/state.ts), and its report says what the run would do,
 * decided as the run decides, with reads only. Intents left open by an interrupted run are reconciled by this
 * very cycle: it observes both sides afresh, and the steps recognise work already done (a body already there,
 * a document already created) instead of repeating it.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncReport> {
  const given = startRun(deps, options);
  const observed = await observe(given);
  // From here on, the options as the team's settings have them (observe followed them: state/team.ts).
  const run = { ...given, options: observed.options };
  const decision = await decide(run, observed);
  if (decision.preview) return report(run, observed, decision, NOTHING_DONE);
  const results = await act(run, observed, decision);
  const stateProblems = await record(run, observed, decision, results);
  return report(run, observed, decision, { results, stateProblems });
}
