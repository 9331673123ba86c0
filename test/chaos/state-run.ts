import { parseArgs } from 'node:util';
import { runStateChaos, StateChaosFailure } from './state-writers.js';

/**
 * `npm run chaos:state -- --seed N --steps M [--count K] [--quiet]`: the long randomized run of the shared
 * state's writers. Seeds N, N+1, … N+K-1 run one after another; without --seed a random one is chosen and
 * printed. A failure prints the seed and the step log, and the process exits 1.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    steps: { type: 'string', default: '40' },
    count: { type: 'string', default: '1' },
    quiet: { type: 'boolean', default: false },
  },
});

function whole(name: string, text: string | undefined): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a whole number, got ${String(text)}`);
    process.exit(2);
  }
  return n;
}

const first = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : whole('seed', values.seed);
const steps = whole('steps', values.steps);
const count = whole('count', values.count);

for (let seed = first; seed < first + count; seed += 1) {
  const started = Date.now();
  console.log(`state chaos: seed ${seed}, ${steps} steps`);
  try {
    const stats = await runStateChaos({ seed, steps, ...(values.quiet ? {} : { onStep: (line) => console.log(`  ${line}`) }) });
    console.log(`state chaos: seed ${seed} passed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(stats)}`);
  } catch (error) {
    if (error instanceof StateChaosFailure) {
      console.error(`\n${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
