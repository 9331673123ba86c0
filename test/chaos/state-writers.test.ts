import { test } from 'node:test';
import { runStateChaos } from './state-writers.js';

/**
 * The short randomized run of the shared state's writers that every `npm test` does: one fixed seed, one
 * quiescence (about 40 s). The long runs are `npm run chaos:state -- --seed N --steps M --count K`
 * (`npm run chaos -- --state ...`). On failure the message holds the seed and the step log.
 */
test('state chaos: seed 4, 8 steps: two workstations and CI jobs, kills, faults and compactions; the state and every writer agree', async () => {
  const stats = await runStateChaos({ seed: 4, steps: 8 });
  console.log(`state chaos seed 4: ${JSON.stringify(stats)}`);
});
