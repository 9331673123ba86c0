import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import { gateProxy, onceAt } from '../../helpers/gate-proxy.js';
import { remotelyPresent } from '../../helpers/reliability.js';
import { createSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

/**
 * Soak 754 (issue 44): a daemon got SIGTERM while its overwrite was on its way, a link's address changed, which no
 * read shows. The drain deadline closed the queue before the answer came, and the write was taken for "not sent":
 * its intent was closed as abandoned. It had landed, so the next run met a document whose time had moved with no
 * record of its own to explain it, and held the page HIDDEN_EDIT (on both machines) as someone's edit inside it.
 *
 * A call cut off by a stop may have landed, as one cut off by a kill: its intent stays open, and the next run
 * reconciles it as it does a kill's.
 */
const PAGE = '# Guide\n\nRead [the manual](https://example.com/manual) first.\n\nA second paragraph.\n';
const MOVED = 'https://example.com/manual-moved';
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

test("a write cut off by SIGTERM's drain deadline, which landed, is the next run's own: no HIDDEN_EDIT, and the next edit is published", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  // The service's clock stands still but where the test moves it: the write lands in a minute of its own.
  em.admin.freezeClock(EPOCH);
  // The write is held at a proxy until the daemon has stopped, and lands then: its answer never reaches the daemon.
  const gate = onceAt((request) => request.method === 'POST' && request.path.includes('/overwriteContent'));
  const proxy = await gateProxy(em.seed.baseUrl, gate.hooks);
  const service = { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } };
  const f = await createSyncFixture({ shared: em, config: { service, watch: { pollBudgetPerHour: 0, shutdownDeadlineMs: 200 } } });
  try {
    await f.write('guide.md', PAGE);
    const first = await f.sync();
    assert.equal(first.code, 0, first.stderr);

    let stopped = (): void => undefined;
    gate.arm(() => new Promise<void>((resolve) => (stopped = resolve)));
    const d = startDaemon(f);
    try {
      await d.waitForLog(firstSweepDone, 'the first full cycle');
      await f.write('guide.md', PAGE.replace('https://example.com/manual', MOVED));
      await waitUntil(() => gate.fired, 'the write to reach the service');
      d.kill('SIGTERM');
      assert.equal(await d.exited(), 0, d.stderr());
    } finally {
      await d.dispose();
      em.admin.setClockOffset(60_000);
      stopped();
    }
    await waitUntil(() => remotelyPresent(f, MOVED), 'the write to land after the daemon stopped');

    const next = await f.sync();
    assert.equal(next.code, 0, `${next.stderr}${next.stdout}`);
    assert.doesNotMatch(JSON.stringify(next.report?.results), /HIDDEN_EDIT/, "its own write is no one's hidden edit");

    await f.write('guide.md', PAGE.replace('https://example.com/manual', MOVED).replace('A second paragraph.', 'A second paragraph, edited later.'));
    const edited = await f.sync();
    assert.equal(edited.code, 0, edited.stderr);
    assert.ok(remotelyPresent(f, 'edited later') && remotelyPresent(f, MOVED), 'the next edit is published, the address kept');
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
});
