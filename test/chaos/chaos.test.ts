import { test } from 'node:test';
import { runChaos } from './driver.js';

/**
 * The short randomized run that every `npm test` does: two fixed seeds, 25 steps each. The long run
 * is `npm run chaos -- --seed N --steps M`. On failure the message holds the seed and the step log.
 */
for (const seed of [1, 2]) {
  test(`chaos: seed ${seed}, 25 steps: no version lost, no duplicate, both sides agree and stay steady`, async () => {
    const stats = await runChaos({ seed, steps: 25 });
    console.log(`chaos seed ${seed}: ${JSON.stringify(stats)}`);
  });
}
