import { test } from 'node:test';
import { runModel } from './driver.js';
import { REGRESSION_SEEDS } from './regression-seeds.js';

/**
 * The randomized model test on a fixed budget (the long run is `npm run torture`): real documents, two
 * workstations, a colleague in the web editor and stateless CI runs, with the oracle's four promises checked
 * after every step. The seeds run are those that once broke a promise, each past the step it broke at: a
 * fixed list, so the suite is the same on every machine; new seeds are explored by `npm run torture`.
 */
for (const { seed, steps, found, colleagueMoves } of REGRESSION_SEEDS) {
  test(`model: seed ${seed}, ${steps} steps (${found})`, async () => {
    await runModel({ seed, steps, ...(colleagueMoves === false ? { colleagueMoves } : {}) });
  });
}
