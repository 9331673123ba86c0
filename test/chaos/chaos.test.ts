import { test } from 'node:test';
import { runChaos } from './driver.js';

/**
 * The short randomized run that every `npm test` does: seed 1, 25 steps (seed 2 as well cost the suite
 * another 6 CPU seconds; KBSYNC_CHAOS_SEEDS=K runs seeds 1…K here). The long run is
 * `npm run chaos -- --seed N --steps M`. On failure the message holds the seed and the step log.
 */
const SEEDS = Number(process.env['KBSYNC_CHAOS_SEEDS'] ?? 1);

for (let seed = 1; seed <= SEEDS; seed += 1) {
  test(`chaos: seed ${seed}, 25 steps: no version lost, no duplicate, both sides agree and stay steady`, async () => {
    const stats = await runChaos({ seed, steps: 25 });
    console.log(`chaos seed ${seed}: ${JSON.stringify(stats)}`);
  });
}
