import { parseArgs } from 'node:util';
import { ModelFailure, runModel } from './driver.js';

/**
 * `npm run torture -- --steps N --seed S [--count K] [--machines 2|3] [--docs D] [--team keyed|keyless|both]
 * [--crashes] [--vault] [--sequential] [--plain-pairs] [--unheld] [--quiet]`: the long randomized model run, in which two
 * machines' runs now and then go on at once (`--sequential`: one at a time, as the recorded seeds were found),
 * with a colleague's saves and minutes passing between their calls, a run stopped after its first body write
 * (`--plain-pairs`: nothing between them, as the seeds recorded before issue 44 were found), and holds: a run's
 * records held while another machine edits and syncs, a new page's first body held while the other run lists
 * it (`--unheld`: none, as the seeds recorded before them were found). Seeds S, S+1,
 * … S+K-1 run one after another; without --seed one is chosen and printed. `--team both` (the default) gives
 * odd seeds a team with a state key and even ones a team without. A failure prints the seed, the problems and
 * the last steps, and the process exits 1.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    steps: { type: 'string', default: '500' },
    count: { type: 'string', default: '1' },
    machines: { type: 'string', default: '2' },
    docs: { type: 'string', default: '5' },
    crashes: { type: 'boolean', default: false },
    team: { type: 'string', default: 'both' },
    vault: { type: 'boolean', default: false },
    sequential: { type: 'boolean', default: false },
    'plain-pairs': { type: 'boolean', default: false },
    unheld: { type: 'boolean', default: false },
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

if (!['keyed', 'keyless', 'both'].includes(values.team)) {
  console.error(`--team must be keyed, keyless or both, got ${values.team}`);
  process.exit(2);
}
const keyedSeed = (seed: number): boolean => values.team === 'keyed' || (values.team === 'both' && seed % 2 === 1);
const first = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : whole('seed', values.seed);
const steps = whole('steps', values.steps);
const count = whole('count', values.count);
let total = 0;
for (let seed = first; seed < first + count; seed++) {
  const started = Date.now();
  console.log(`model: seed ${seed}, ${steps} steps, a team ${keyedSeed(seed) ? 'with' : 'without'} a state key`);
  try {
    const stats = await runModel({
      seed,
      steps,
      machines: whole('machines', values.machines),
      docs: whole('docs', values.docs),
      crashes: values.crashes,
      keyed: keyedSeed(seed),
      vault: values.vault,
      together: !values.sequential,
      races: !values.sequential && !values['plain-pairs'],
      holds: !values.sequential && !values['plain-pairs'] && !values.unheld,
      ...(values.quiet ? {} : { onStep: (line: string) => console.log(`  ${line}`) }),
    });
    total += steps;
    console.log(`model: seed ${seed} passed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(stats)}`);
  } catch (error) {
    if (error instanceof ModelFailure) {
      console.error(`\n${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
console.log(`model: ${count} seed(s), ${total} steps, 0 invariant violations`);
