import { parseArgs } from 'node:util';
import { runSoak } from './driver.js';
import { summaryLines } from './summary.js';

/**
 * `npm run soak -- [--seed S] [--minutes M | --steps N] [--count K] [--team keyed|keyless] [--docs D]
 * [--prose SHARE] [--sweep-seconds N] [--calm] [--keep] [--quiet]`: the convergence soak (driver.ts). Seeds
 * S … S+K-1 run one after another (without --seed one is chosen and printed), each for M minutes of writing
 * (default 5), or N steps (a failure's replay), then settling and the verdict. Each prints its summary table and
 * its violations; the process exits 1 if any seed failed.
 * `--calm`: no faults and no kills. `--keep`: the folders, the daemons' logs and the service's documents stay.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    minutes: { type: 'string' },
    steps: { type: 'string' },
    count: { type: 'string', default: '1' },
    team: { type: 'string', default: 'keyed' },
    docs: { type: 'string', default: '16' },
    prose: { type: 'string', default: '0.5' },
    'sweep-seconds': { type: 'string', default: '3' },
    calm: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

function number(name: string, text: string | undefined, { whole = true, max = Infinity } = {}): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > max || (whole && !Number.isInteger(n))) {
    console.error(`--${name} must be ${whole ? 'a whole number' : 'a number'}${max < Infinity ? ` from 0 to ${max}` : ' of 0 or more'}, got ${String(text)}`);
    process.exit(2);
  }
  return n;
}

if (values.team !== 'keyed' && values.team !== 'keyless') {
  console.error(`--team must be keyed or keyless, got ${values.team}`);
  process.exit(2);
}
// World.close keeps the folders (and writes the service's documents beside them) when asked to.
if (values.keep) process.env['KBSYNC_MODEL_KEEP'] = '1';
const first = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : number('seed', values.seed);
// --steps alone replays a run to its last step, however long that takes; --minutes alone (or neither) writes for a time.
const steps = values.steps === undefined ? undefined : number('steps', values.steps);
const minutes = values.minutes === undefined ? (steps === undefined ? 5 : undefined) : number('minutes', values.minutes, { whole: false });
const count = number('count', values.count);
const options = {
  ...(minutes === undefined ? {} : { minutes }),
  ...(steps === undefined ? {} : { steps }),
  keyed: values.team === 'keyed',
  docs: number('docs', values.docs),
  proseShare: number('prose', values.prose, { whole: false, max: 1 }),
  sweepSeconds: number('sweep-seconds', values['sweep-seconds'], { whole: false }),
  calm: values.calm,
};
let failed = 0;
for (let seed = first; seed < first + count; seed++) {
  const started = Date.now();
  const spell = [minutes === undefined ? '' : `${minutes} minute(s)`, steps === undefined ? '' : `${steps} step(s)`].filter(Boolean).join(' or ');
  console.log(`soak: seed ${seed}, ${spell} of writing, two daemons, a team ${options.keyed ? 'with' : 'without'} a state key${options.calm ? ', calm' : ''}`);
  // Each line with the wall clock, to read beside the daemons' logs (their `time`).
  const say = (line: string): void => console.log(`  ${new Date().toISOString().slice(11, 23)} ${line}`);
  let result;
  try {
    result = await runSoak({ ...options, seed, ...(values.quiet ? {} : { say }) });
  } catch (error) {
    // The soak itself could not go on (a daemon that never started, a folder gone): that seed failed, the next runs.
    failed += 1;
    console.log(`\nsoak: seed ${seed} stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    continue;
  }
  const replay = `npm run soak -- --seed ${seed} --steps ${result.steps} --team ${values.team} --docs ${options.docs} --prose ${options.proseShare} --sweep-seconds ${options.sweepSeconds}${options.calm ? ' --calm' : ''}`;
  console.log(`\nsoak: seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s`);
  for (const line of summaryLines(result, replay, ['A', 'B'])) console.log(line);
  if (result.violations.length > 0) {
    failed += 1;
    console.log(`\n  violations (seed ${seed}):`);
    for (const violation of result.violations) console.log(`  - ${violation}`);
  }
  console.log('');
}
console.log(`soak: ${count} seed(s), ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
