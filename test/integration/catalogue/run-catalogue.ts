import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { createCaseFixture, OutputLog, printed, snapshotLocal, snapshotRemote } from '../../helpers/bad-input.js';
import type { BadInput } from './case.js';
import { clockAndCliCases } from './clock-cli.cases.js';
import { configCases } from './config.cases.js';
import { fileCases } from './files.cases.js';
import { guardCases } from './guards.cases.js';
import { pathCases } from './paths.cases.js';
import { serviceCases } from './service.cases.js';
import { titleCases } from './titles.cases.js';

/** The whole catalogue, in two halves so that the test runner runs them side by side. */
export const LOCAL_INPUTS: readonly BadInput[] = [...configCases, ...fileCases, ...pathCases, ...clockAndCliCases];
export const REMOTE_INPUTS: readonly BadInput[] = [...serviceCases, ...titleCases, ...guardCases];
const CATALOGUE_SIZE = LOCAL_INPUTS.length + REMOTE_INPUTS.length;

const outsideRoot = (tree: Map<string, string>): Map<string, string> => new Map([...tree].filter(([rel]) => rel !== 'notes' && !rel.startsWith('notes/')));

/**
 * Runs catalogue rows as one test each (three at once; each case has a workspace of its own on one
 * shared emulator). For every row: set up, snapshot both sides, run kbsync, check the exit code and
 * the message, check that nothing changed beyond what the row allows, then the row's own checks.
 * Finally, no command's output may hold a token.
 */
export function defineCatalogue(title: string, rows: readonly BadInput[]): void {
  const outputs = new OutputLog();
  let shared: RunningEmulator | undefined;
  let tried = 0;

  async function runCase(row: BadInput): Promise<void> {
    const em = row.emulator ? await startEmulator({ rateLimit: 0, ...row.emulator }) : (shared as RunningEmulator);
    const f = await createCaseFixture(em, outputs);
    try {
      await row.setup?.(f);
      const localBefore = await snapshotLocal(f);
      const remoteBefore = snapshotRemote(f);
      const run = await row.run(f);
      tried += 1;
      assert.equal(run.code, row.exit, `exit code of ${row.name}:\n${printed(run)}`);
      for (const pattern of row.says) assert.match(printed(run), pattern);
      const changes = row.changes ?? 'nothing';
      const localAfter = await snapshotLocal(f);
      if (changes === 'nothing' || changes === 'remote') assert.deepEqual(localAfter, localBefore, 'local files changed');
      else assert.deepEqual(outsideRoot(localAfter), outsideRoot(localBefore), 'something was written outside the root');
      if (changes === 'nothing' || changes === 'local') assert.deepEqual(snapshotRemote(f), remoteBefore, 'remote documents changed');
      await row.check?.(f, run);
    } finally {
      await f.close();
      if (row.emulator) await em.close();
    }
  }

  describe(`bad input catalogue: ${title}`, { concurrency: 3 }, () => {
    before(async () => {
      shared = await startEmulator({ rateLimit: 0 });
    });
    after(async () => {
      await shared?.close();
      console.log(`bad inputs tried: ${tried} of ${rows.length} (${title}); ${CATALOGUE_SIZE} in the whole catalogue`);
    });
    for (const row of rows) test(`${row.group}: ${row.name}`, () => runCase(row));
  });

  describe(`bad input catalogue: ${title}: what it printed`, () => {
    test('no output of these commands holds an access token', () => {
      assert.ok(outputs.size >= rows.length, `only ${outputs.size} outputs recorded`);
      assert.ok(outputs.secrets.length >= 2);
      assert.deepEqual(outputs.leaks(), [], 'a token appeared in these outputs');
    });
  });
}
