import { parseArgs } from 'node:util';
import { ChaosFailure, runChaos } from './driver.js';
import { runStateChaos, StateChaosFailure } from './state-writers.js';

/**
 * `npm run chaos -- [--state] --seed N --steps M [--count K] [--quiet]`: the long randomized runs. Without
 * --state, one folder, a colleague in the knowledge base and crashes (driver.ts); with it (also
 * `npm run chaos:state`), the shared state's writers: two workstations and CI jobs (state-writers.ts).
 * Seeds N, N+1, … N+K-1 run one after another; without --seed a random one is chosen and printed. A
 * failure prints the seed and the step log, and the process exits 1.
 */
const { values } = parseArgs({
  options: {
    state: { type: 'boolean', default: false },
    seed: { type: 'string' },
    steps: { type: 'string' },
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

const name = values.state ? 'state chaos' : 'chaos';
const run = values.state ? runStateChaos : runChaos;
const first = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : positive('seed', values.seed);
const steps = positive('steps', values.steps ?? (values.state ? '40' : '200'));
const count = positive('count', values.count);

for (let seed = first; seed < first + count; seed++) {
  const started = Date.now();
  console.log(`${name}: seed ${seed}, ${steps} steps`);
  try {
    const stats = await run({ seed, steps, ...(values.quiet ? {} : { onStep: (line: string) => console.log(`  ${line}`) }) });
    console.log(`${name}: seed ${seed} passed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(stats)}`);
  } catch (error) {
    if (error instanceof ChaosFailure || error instanceof StateChaosFailure) {
      console.error(`\n${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
