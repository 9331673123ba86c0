import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Model seed 8003 (note vaults): kbsync's placeholder for a block the service does not show is an HTML comment, and
 * a vault's push leaves comments out. Checked in what is sent, the placeholder was never seen there, and a forced
 * run (or `kbsync resolve --mine`) published the file as it is: the colleague's code block it stood for was deleted
 * without a word, where a file in any other dialect is held (PLACEHOLDERS), forced or not.
 */
const VAULT = { config: { markdown: { dialect: 'obsidian' } } } as const;

/** A page a colleague made in the web editor with a code block, pulled here (a placeholder where the code is), then edited. */
async function pulledAndEdited(f: SyncFixture): Promise<void> {
  // One service minute: the pull's read is not asked again by a minute that ends during the run.
  f.em.admin.freezeClock(Date.UTC(2026, 10, 2, 9, 0, 30));
  f.em.admin.createDocument({ name: 'Runbook', markdown: '# Runbook\n\nSteps:\n\n```sh\nrestart --all\n```\n' });
  assert.equal((await f.sync()).code, 0);
  const pulled = await f.read('Runbook.md');
  assert.match(pulled, /<!-- kbsync:/, 'the code block came in as a placeholder');
  await f.write('Runbook.md', pulled.replace('Steps:', 'Steps, carefully:'));
}

/** The run held the file for its placeholder, and the code the service never showed stands. */
function heldForPlaceholder(f: SyncFixture, run: Awaited<ReturnType<SyncFixture['sync']>>): void {
  const result = run.report?.results.find((r) => r.path === 'Runbook.md');
  assert.deepEqual(result?.ok && [result.action, result.reason], ['held', 'PLACEHOLDERS'], `${run.stdout}${run.stderr}`);
  assert.match(f.remoteDoc('Runbook').markdown ?? '', /restart --all/, 'the code block the file has a placeholder for is still there');
}

test("a vault's file with a placeholder is held, not published without it: the code it stands for stays", async () => {
  await withSyncFixture(async (f) => {
    await pulledAndEdited(f);
    const run = await f.sync();
    assert.equal(run.code, 1, run.stderr);
    heldForPlaceholder(f, run);
  }, VAULT);
});

test("…even by a forced run, as in any other dialect (model seed 8003: the forced push deleted a colleague's code block)", async () => {
  await withSyncFixture(async (f) => {
    await pulledAndEdited(f);
    const run = await f.sync(['--force']);
    heldForPlaceholder(f, run);
  }, VAULT);
});
