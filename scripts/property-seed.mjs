// Preloaded into every test file's process (scripts/run-tests.mjs): the property tests (fast-check) draw the
// same inputs on every run of `npm test`, so a CI run passes or fails on the code, not on the draw. A failure
// prints its seed and path, which replay it. `KBSYNC_FC_SEED=random` draws fresh inputs (the way to hunt for new
// counterexamples, with KBSYNC_FC_RUNS and KBSYNC_PROPERTY_RUNS for more of them); a number draws that seed's.
// The compiled test files import fast-check from node_modules (scripts/build-tests.mjs): the same instance.
import fc from 'fast-check';

const FIXED_SEED = 20261206;
const asked = process.env.KBSYNC_FC_SEED;
if (asked !== 'random') {
  const seed = asked === undefined || asked === '' ? FIXED_SEED : Number(asked);
  if (!Number.isSafeInteger(seed)) {
    console.error(`KBSYNC_FC_SEED must be a whole number or "random", got ${asked}`);
    process.exit(2);
  }
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
