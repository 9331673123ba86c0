import { parseArgs } from 'node:util';
import { ChaosFailure, runChaos } from './driver.js';

/**
 * `npm run chaos -- --seed N --steps M [--count K] [--quiet]`: the long randomized run. Seeds N, N+1, …
 * N+K-1 run one after another; without --seed a random one is chosen and printed. A failure prints
 * the seed and the step log, and the process exits 1.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    steps: { type: 'string', default: '200' },
    count: { type: 'string', default: '1' },
    quiet: { type: 'boolean', default: false },
  },
});

function positive(name: string, text: string | undefined): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a whole number, got ${String(text)}`);
    process.exit(2);
  }
  return n;
}

const first = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : positive('seed', values.seed);
const steps = positive('steps', values.steps);
const count = positive('count', values.count);

for (let seed = first; seed < first + count; seed++) {
  const started = Date.now();
  console.log(`chaos: seed ${seed}, ${steps} steps`);
  try {
    const stats = await runChaos({ seed, steps, ...(values.quiet ? {} : { onStep: (line) => console.log(`  ${line}`) }) });
    console.log(`chaos: seed ${seed} passed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(stats)}`);
  } catch (error) {
    if (error instanceof ChaosFailure) {
      console.error(`\n${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
