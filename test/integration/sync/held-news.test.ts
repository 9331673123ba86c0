import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../../src/log.js';
import { runSync } from '../../../src/sync/engine.js';
import type { SyncReport } from '../../../src/sync/views/report.js';
import { withInProcess } from '../../helpers/in-process-sync.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Issue 44, soak 721: a standing hold said again within a second, with no news. The daemon's local cycle (no listing)
 * decides a held file on what it reads, and its sweep, a moment later, on the listing: the hold is said once, and
 * again only when the document moved past what it was decided on. The local cycle kept the hold with the record's
 * older minute, so the sweep's listing of the very version the cycle had read looked like a later edit, and the
 * hold was said again (FLATTEN after a colleague's edit taken in; HIDDEN_EDIT seen on a time the cycle asked).
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

/** A two-way run that lists nothing it need not, as the daemon's local cycle runs on a save. */
const localCycle = (f: SyncFixture): Promise<SyncReport> =>
  withInProcess(f, 'two-way', ({ client, ledger, options }) => runSync({ client, ledger, logger: silentLogger }, { ...options, listRemote: 'if-needed' }));

/** A two-way run that lists the workspace, as the daemon's sweep runs. */
const sweep = (f: SyncFixture): Promise<SyncReport> =>
  withInProcess(f, 'two-way', ({ client, ledger, options }) => runSync({ client, ledger, logger: silentLogger }, { ...options, listRemote: 'always' }));

/** The run's hold of `path`: its reason, and whether it was news (a daemon warns only then). */
function holdOf(report: SyncReport, path: string): { readonly reason: string | undefined; readonly news: boolean } {
  const result = report.results.find((r) => r.path === path);
  assert.ok(result?.ok && result.result === 'held', JSON.stringify(report.results));
  return { reason: result.reason, news: result.repeated !== true };
}

/** The service's clock stopped at EPOCH, moved on a minute at each tick. */
function frozenClock(f: SyncFixture): () => void {
  f.em.admin.freezeClock(EPOCH);
  let minutes = 0;
  return () => f.em.admin.setClockOffset(++minutes * 60_000);
}

test("a held file's local cycle takes a colleague's edit in: said then, and not again by the sweep that lists that edit", async () => {
  await withSyncFixture(async (f) => {
    const tick = frozenClock(f);
    const web = '# Guide\n\nRead the [install notes](https://example.com/install) and run `make`.\n\nThis part is **important**.\n';
    const doc = f.em.admin.createDocument({ name: 'Guide', markdown: web });
    tick();
    await sweep(f);
    tick();
    await sweep(f);
    // An edit of a page made in the web editor: its overwrite would flatten the links and bold (FLATTEN).
    await f.write('Guide.md', (await f.read('Guide.md')).replace('This part', 'This section'));
    assert.deepEqual(holdOf(await localCycle(f), 'Guide.md'), { reason: 'FLATTEN', news: true });
    tick();
    f.em.admin.editDocument(doc.dentryUuid, web.replace('run `make`', 'run `make` twice'));
    // Saved again: the local cycle reads the document, and takes the colleague's edit into the held file.
    await f.write('Guide.md', (await f.read('Guide.md')).replace('This section', 'This chapter'));
    assert.deepEqual(holdOf(await localCycle(f), 'Guide.md'), { reason: 'FLATTEN', news: true }, "said again: a colleague's edit came");
    assert.match(await f.read('Guide.md'), /twice/, "the colleague's edit is in the file");
    // The sweep lists the document at the minute of that very edit: nothing the hold was not decided on.
    assert.deepEqual(holdOf(await sweep(f), 'Guide.md'), { reason: 'FLATTEN', news: false }, 'the sweep after it does not say it again');
    assert.deepEqual(holdOf(await sweep(f), 'Guide.md'), { reason: 'FLATTEN', news: false });
    assert.equal(f.remoteDoc('Guide').markdown, web.replace('run `make`', 'run `make` twice'), 'held: nothing was overwritten');
  });
});

test('a hidden edit a local cycle found on the time it asked: said then, and not again by the sweep that lists that time', async () => {
  await withSyncFixture(async (f) => {
    const tick = frozenClock(f);
    const runbook = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
    await f.write('runbook.md', runbook);
    await sweep(f);
    tick();
    await sweep(f);
    tick();
    const doc = f.remoteDoc('Runbook');
    f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
    // Judged once the minutes in which a kbsync writer's record of it could still come are over (BodyDecision.waiting).
    tick();
    tick();
    tick();
    await f.write('runbook.md', runbook.replace('check the dashboard', 'check the dashboard and the logs'));
    assert.deepEqual(holdOf(await localCycle(f), 'runbook.md'), { reason: 'HIDDEN_EDIT', news: true });
    assert.deepEqual(holdOf(await sweep(f), 'runbook.md'), { reason: 'HIDDEN_EDIT', news: false }, 'the sweep after it does not say it again');
    assert.deepEqual(holdOf(await sweep(f), 'runbook.md'), { reason: 'HIDDEN_EDIT', news: false });
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "held: the colleague's edit stands");
  });
});
