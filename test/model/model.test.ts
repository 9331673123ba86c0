import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import type { StateReport } from '../../src/cli/commands/state.js';
import { runModel } from './driver.js';
import { REGRESSION_SEEDS } from './regression-seeds.js';
import { World } from './world.js';

/**
 * The randomized model test on a fixed budget (the long run is `npm run torture`): real documents, two
 * workstations, a colleague in the web editor and stateless CI runs, with the oracle's four promises checked
 * after every step. The seeds run are those that once broke a promise, each past the step it broke at: a
 * fixed list, so the suite is the same on every machine; new seeds are explored by `npm run torture`.
 */
for (const { seed, steps, found, colleagueMoves, keyed, together, vault } of REGRESSION_SEEDS) {
  // A team of note vaults: the same promises, with wiki links, embeds, callouts and comments in every document.
  test(`model: ${vault ? 'a team of note vaults, ' : ''}seed ${seed}, ${steps} steps (${found})`, async () => {
    await runModel({ seed, steps, ...(colleagueMoves === false ? { colleagueMoves } : {}), ...(keyed ? { keyed } : {}), ...(together ? { together } : {}), ...(vault ? { vault } : {}) });
  });
}

// The model's in-process runs once ignored the team's key, so every "keyed" seed ran a keyless team.
test("model: a keyed world's runs sign the shared state, as `kbsync sync` with the key does", async () => {
  const world = await World.create(1, 2, true);
  try {
    const [a] = world.machines;
    assert.ok(a);
    await a.write('note.md', '# Note\n\nSigned.\n');
    const outcome = await a.sync();
    assert.equal(outcome.error, undefined);
    const shown = await runCli(['state', '--json', '--config', a.settings.configPath], { cwd: a.settings.dir, env: a.settings.env });
    const report = JSON.parse(shown.stdout) as StateReport;
    assert.equal(report.authenticated, true);
    assert.equal(report.entries, 1);
    assert.deepEqual({ unverifiedTokens: report.junk.unverifiedTokens, unverifiedDocs: report.junk.unverifiedDocs }, { unverifiedTokens: 0, unverifiedDocs: [] });
  } finally {
    await world.close();
  }
});
