import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Another kbsync writer's edit inside a code block reads the same as before (the service shows code as
 * `unknown`): only that writer's record in the shared state says what changed. Found by the model test
 * (seed 1005): a push-only run overwrote such an edit with the file.
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
const THEIRS = TEXT.replace('```sh', '```bash');
const MINE = TEXT.replace('check the dashboard', 'check the dashboard and the logs');
const BOTH = THEIRS.replace('check the dashboard', 'check the dashboard and the logs');
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);

const runbook = (f: SyncFixture): string => f.remoteDoc('Runbook').markdown ?? '';

async function synced(f: SyncFixture, args: readonly string[] = []): Promise<NonNullable<Awaited<ReturnType<SyncFixture['sync']>>['report']>> {
  const run = await f.sync(args);
  assert.ok(run.report, run.stderr);
  return run.report;
}

/** TEXT published by A and pulled by B, in a minute now over. */
async function publishedOnBoth(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<void> {
  em.admin.freezeClock(EPOCH);
  await a.write('runbook.md', TEXT);
  await synced(a);
  await synced(b);
  em.admin.setClockOffset(2 * 60_000);
}

test("another machine's edit inside code: a push-only run of another edit holds REMOTE_EDITED, a two-way run merges both", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b);
    await b.write('runbook.md', THEIRS);
    await synced(b);
    em.admin.setClockOffset(4 * 60_000);

    await a.write('runbook.md', MINE);
    const push = await synced(a, ['--push']);
    assert.deepEqual(
      push.results.map((r) => r.ok && r.result === 'held' && r.reason),
      ['REMOTE_EDITED'],
      JSON.stringify(push.results),
    );
    assert.equal(runbook(a), THEIRS, "the other machine's code edit stands");

    await synced(a);
    assert.equal(await a.read('runbook.md'), BOTH);
    assert.equal(runbook(a), BOTH);
  });
});

// Model seed 3031: a machine pulled another machine's write made in the minute of its own last record. The
// listing's time was no later than the record's, so the pull recorded the time as unknown; the next listing
// then showed a colleague's later edit inside the code as merely "the time, now known", and the next push
// overwrote it.
test("a pull of another machine's write made in the minute of the last record keeps that minute: a colleague's later edit inside code is seen", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b);
    await b.write('runbook.md', TEXT.replace('read this', 'read this first'));
    await synced(b);
    await a.write('runbook.md', TEXT.replace('check the dashboard', 'check the dashboard and the logs'));
    await synced(a);
    const pulled = await synced(b);
    assert.deepEqual(
      pulled.results.map((r) => r.ok && r.result),
      ['pulled'],
      JSON.stringify(pulled.results),
    );

    em.admin.setClockOffset(4 * 60_000);
    em.admin.editDocument(b.remoteDoc('Runbook').dentryUuid, runbook(b).replace('restart --all', 'restart --all --graceful'));
    // Judged once the minutes in which a kbsync writer's record of it could still come are over.
    em.admin.setClockOffset(7 * 60_000);
    const seen = await synced(b);
    assert.match(JSON.stringify(seen.results), /HIDDEN_EDIT/, 'the edit the service does not show is said');
    await b.write('runbook.md', (await b.read('runbook.md')).replace('After that', 'Then'));
    const push = await synced(b);
    assert.deepEqual(
      push.results.map((r) => r.ok && r.result === 'held' && r.reason),
      ['HIDDEN_EDIT'],
      JSON.stringify(push.results),
    );
    assert.match(runbook(b), /--graceful/, "the colleague's edit stands");
  });
});

// Model seed 5033: machine B saw a colleague's edit inside code and published a record saying its document
// holds more than its Markdown; machine A took B's later version in, silently, and its file showed the code
// the document no longer held.
test("another machine's version of a document that holds a hidden edit: taken in and said once; an overwrite stays held", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b);
    await synced(a);
    await synced(b);
    em.admin.setClockOffset(4 * 60_000);
    em.admin.editDocument(b.remoteDoc('Runbook').dentryUuid, runbook(b).replace('restart --all', 'restart --all --graceful'));
    em.admin.setClockOffset(7 * 60_000);
    assert.match(JSON.stringify((await synced(b)).results), /HIDDEN_EDIT/, 'B sees it');
    em.admin.setClockOffset(9 * 60_000);
    await b.write('runbook.md', TEXT.replace('check the dashboard.', 'check the dashboard. Then rest.'));
    await synced(b);
    assert.match(runbook(b), /Then rest\./, "B's append went out");

    const pulled = await synced(a);
    const result = pulled.results.find((r) => r.path === 'runbook.md');
    assert.ok(result?.ok && result.result === 'pulled', JSON.stringify(result));
    assert.match(result.detail ?? '', /HIDDEN_EDIT/, 'A says the document holds what its file cannot show');
    assert.match(await a.read('runbook.md'), /Then rest\./);
    const again = await synced(a);
    assert.doesNotMatch(JSON.stringify(again.results), /HIDDEN_EDIT/, 'said once');

    await a.write('runbook.md', (await a.read('runbook.md')).replace('Before you start', 'Before anything'));
    const held = await synced(a);
    assert.ok(held.results.some((r) => r.ok && r.result === 'held'), JSON.stringify(held.results));
    assert.match(runbook(a), /--graceful/, "the colleague's edit stands");
  });
});
