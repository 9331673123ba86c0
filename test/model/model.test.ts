import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import type { StateReport } from '../../src/cli/commands/state.js';
import { replaySeeds } from './replay-seeds.js';
import { World } from './world.js';

// The first half of the regression seeds; model-2.test.ts replays the second (replay-seeds.ts says why).
replaySeeds(0);

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
