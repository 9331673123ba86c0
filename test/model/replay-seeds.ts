import { test } from 'node:test';
import { runModel } from './driver.js';
import { REGRESSION_SEEDS } from './regression-seeds.js';

/**
 * The files the regression seeds are shared between: model.test.ts replays part 0, model-2.test.ts part 1. In one
 * file they took 55 CPU-s, the suite's longest file by more than twice, run one after another on one core: the
 * suite ended on it. Split, the runner runs the halves side by side.
 */
const PARTS = 2;

/**
 * The randomized model test on a fixed budget (the long run is `npm run torture`): real documents, two
 * workstations, a colleague in the web editor and stateless CI runs, with the oracle's four promises checked
 * after every step. The seeds run are those that once broke a promise, each past the step it broke at: a
 * fixed list, so the suite is the same on every machine; new seeds are explored by `npm run torture`. This
 * registers every PARTS-th seed of the list from `part` on.
 */
export function replaySeeds(part: number): void {
  REGRESSION_SEEDS.forEach(({ seed, steps, found, colleagueMoves, keyed, together, races, holds, vault }, index) => {
    if (index % PARTS !== part) return;
    // A team of note vaults: the same promises, with wiki links, embeds, callouts and comments in every document.
    test(`model: ${vault ? 'a team of note vaults, ' : ''}seed ${seed}, ${steps} steps (${found})`, async () => {
      await runModel({ seed, steps, ...(colleagueMoves === false ? { colleagueMoves } : {}), ...(keyed ? { keyed } : {}), ...(together ? { together } : {}), ...(races ? { races } : {}), ...(holds ? { holds } : {}), ...(vault ? { vault } : {}) });
    });
  });
}
