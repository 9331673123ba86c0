import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import type { SyncReport } from '../../../src/sync/views/report.js';
import { gateProxy, onceAt, type Passing } from '../../helpers/gate-proxy.js';
import { localCycleInProcess as localCycle } from '../../helpers/in-process-sync.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Soak seed 716 (keyed): machine B's daemon pushed its edit of a page with code, and recorded the write a moment
 * later. Between the two, the service's clock went on a minute and a colleague saved a code line (reads show code
 * as `unknown`: the read-back showed nothing of it). The record's minute was taken from the service's clock as last
 * heard when the record was made, not when the write was answered: it was the save's minute, so the save bore the
 * time B's own write was recorded with, and B's next push (its next edit, a second later) overwrote the code line
 * unseen. The write's minute is the one its answer bore; the save's, later, is then the hidden edit it is.
 *
 * The interleaving is forced with a proxy: the read-back of the write (a page whose code blocks read alike is read
 * back at once, apply-body.ts readAlike) waits until the colleague has saved, a minute later.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
const TEXT = '# Runbook\n\nRun these.\n\n```sh\nrestart --all\n```\n\n```sh\ncheck --dashboard\n```\n\nThat is all.\n';
const MINE = TEXT.replace('Run these.', 'Run these, in order.');
const THEIRS = MINE.replace('restart --all', 'restart --all\nc9z');
const LATER = MINE.replace('That is all.', 'That is all, for now.');

/** The first read of a document's blocks after an overwrite went by: a write's read-back. */
function readBack(): (request: Passing) => boolean {
  let wrote = false;
  return (request) => {
    if (request.method === 'POST' && request.path.includes('/overwriteContent')) wrote = true;
    return wrote && request.method === 'GET' && request.path.includes('/blocks');
  };
}

/**
 * The runbook synced (its time learnt), MINE written to the file a minute later, and a colleague's code line armed
 * to land, a minute later again, as that edit's push reads its write back: `next` then makes the file's next run.
 */
async function savedBeforeTheRecord(next: (f: SyncFixture) => Promise<SyncReport>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  em.admin.freezeClock(EPOCH);
  let minutes = 0;
  const tick = (): void => em.admin.setClockOffset(++minutes * 60_000);
  const gate = onceAt(readBack());
  const proxy = await gateProxy(em.seed.baseUrl, gate.hooks);
  const f = await createSyncFixture({ shared: em, config: { service: { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  try {
    await f.write('runbook.md', TEXT);
    assert.equal((await f.sync()).code, 0);
    tick();
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Runbook');
    tick();
    await f.write('runbook.md', MINE);
    gate.arm(async () => {
      tick();
      em.admin.editDocument(doc.dentryUuid, THEIRS);
    });
    const pushed = await localCycle(f);
    assert.ok(gate.fired, "the colleague saved between the write and its read-back");
    assert.deepEqual(pushed.results.map((r) => (r.ok ? `${r.path} ${r.result}` : `${r.path} failed ${r.code}`)), ['runbook.md pushed']);

    await f.write('runbook.md', LATER);
    // The save's minute is the last one: a kbsync writer's record of it may still come, and the edit waits with it
    // (convergence soak 762); it is judged once those two minutes are over.
    const waited = await next(f);
    assert.deepEqual(waited.results.map((r) => (r.ok ? r.reason : r.code)), ['JUST_EDITED'], JSON.stringify(waited.results));
    tick();
    tick();
    const report = await next(f);
    assert.equal(f.remoteDoc('Runbook').markdown?.includes('c9z'), true, "the colleague's code line is still in the knowledge base");
    assert.match(JSON.stringify(report.results), /HIDDEN_EDIT/, 'the file is held: its document holds an edit reads cannot show');
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
}

test("a colleague's code line saved between a push and its record waits, then is held as a hidden edit by a local cycle, not overwritten", async () => {
  await savedBeforeTheRecord(localCycle);
});

test("a colleague's code line saved between a push and its record waits, then is held as a hidden edit by a run that lists, not overwritten", async () => {
  await savedBeforeTheRecord(async (f) => {
    const run = await f.sync();
    assert.ok(run.report, run.stderr);
    return run.report;
  });
});
