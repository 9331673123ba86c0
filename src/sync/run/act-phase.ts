import { retire } from '../act/removals.js';
import { announceAhead } from '../state/announce.js';
import { execute, type ActionResult } from './executor.js';
import { owePublicationBeforeActing } from '../state/run.js';
import { prepareImages } from '../content/images.js';
import { relink } from '../content/run-links.js';
import type { Decision } from './decide-phase.js';
import type { Run } from './inputs.js';
import type { Observed } from './observe-phase.js';

/**
 * Act: what an interrupted run promised first, then the images the sent bodies need, the planned actions
 * through the queue (each recorded with its intent by its step), and the bodies sent again for their links.
 * Returns every result, failures included.
 */
export async function act(run: Run, observed: Observed, decision: Decision): Promise<ActionResult[]> {
  const { deps, options } = run;
  const { ctx, sent } = decision;
  const retirements = deps.ledger.retirements.all();
  if (retirements.length > 0 || observed.observation.plan.actions.length > 0) owePublicationBeforeActing(deps.ledger);
  // Old documents of moved files that an interrupted run promised to delete go first.
  for (const retirement of retirements) await retire(ctx, retirement);
  // Images first: a body goes out whole, with every image's URL, or not at all.
  const ready = await prepareImages(observed.images, sent, observed.observation.plan.actions);
  await announceAhead(ctx, ready.actions);
  for (const failure of ready.failed) options.onResult?.(failure);
  const results: ActionResult[] = [...ready.failed];
  results.push(...await execute(ctx, ready.actions, {
    ...(options.onResult ? { onResult: options.onResult } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }));
  results.push(...(await relink(ctx, results, options.signal?.aborted === true)));
  return results;
}
