import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import type { SyncReport } from '../../../src/sync/views/report.js';
import { callArrived } from '../../helpers/emulator.js';
import { localCycleInProcess as localCycle } from '../../helpers/in-process-sync.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Convergence soak 761 (keyless): B's daemon pushed a rewrapped line of a prose page. Its overwrite reached the
 * service at 10:39; before the service had read the request's body, the service's clock stepped to 10:40 (the soak
 * steps it before a colleague's edit of another page), so the write was stamped 10:40. The emulator's answer bore
 * the Date of the request's arrival (10:39), B recorded its write with that minute, and B's next sweep listed 10:40
 * over blocks as predicted: its own write, taken for someone's edit where reads cannot see (HIDDEN_EDIT), held for
 * good. A server dates its answer as it answers: the write's minute is then never later than the Date its answer
 * bears. Here the write is kept in the service (an injected latency) while the clock steps on.
 */

const EPOCH = Date.UTC(2026, 10, 2, 10, 38, 30);
const PROSE = '# Acorn\n\nA small parser for the web, with plugins and a tokenizer that reads every line.\n\nIt is fast.\n';
const REWRAPPED = PROSE.replace('with plugins ', 'with plugins\n');
const WITH_CODE = '# Acorn\n\nParse this.\n\n```js\nparse(source)\n```\n\nIt is fast.\n';
const CODE_REWRAPPED = WITH_CODE.replace('It is fast.', 'It is\nfast.');
const CODE_EDITED = CODE_REWRAPPED.replace('parse(source)', 'parse(source)\nc9z');
const LATER = CODE_REWRAPPED.replace('Parse this.', 'Parse this first.');

const outcomes = (report: SyncReport): string[] => report.results.map((r) => (r.ok ? `${r.path} ${r.result}${r.reason ? ` ${r.reason}` : ''}` : `${r.path} failed ${r.code}`));

/**
 * `text` synced (its time learnt), then `edited` written to the file a minute later and pushed by a local cycle whose
 * overwrite is held in the service while its clock steps on a minute; then `run` goes on, with `tick` to step the clock.
 */
async function pushedAcrossAMinute(run: (f: SyncFixture, tick: () => void) => Promise<void>, text: string, edited: string): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  em.admin.freezeClock(EPOCH);
  let minutes = 0;
  const tick = (): void => em.admin.setClockOffset(++minutes * 60_000);
  const f = await createSyncFixture({ shared: em, env: { KBSYNC_STATE_KEY: '' } });
  try {
    await f.write('guides/acorn.md', text);
    assert.equal((await f.sync()).code, 0);
    tick();
    assert.equal((await f.sync()).code, 0);
    tick();
    await f.write('guides/acorn.md', edited);
    const before = em.admin.calls().byEndpoint.overwriteContent.calls;
    em.admin.setFaults({ latency: 300, only: ['overwriteContent'] });
    const pushing = localCycle(f);
    await callArrived(em, 'overwriteContent', before);
    tick();
    em.admin.setFaults({});
    assert.deepEqual(outcomes(await pushing), ['guides/acorn.md pushed']);
    assert.equal(f.remoteDoc('Acorn').modifiedTime, '2026-11-02T10:41Z', 'the write was stamped with the minute the clock stepped to while it was in the service');
    await run(f, tick);
  } finally {
    await f.close();
    await em.close();
  }
}

test('a write the service stamped with the minute its clock stepped to while the write was in it is known for our own by the next run that lists', async () => {
  await pushedAcrossAMinute(async (f, tick) => {
    // Past the two minutes in which another writer's record of a time could still come (BodyFacts.recordMayCome).
    tick();
    tick();
    const run = await f.sync();
    assert.ok(run.report, run.stderr);
    assert.deepEqual(run.report.results, [{ path: 'guides/acorn.md', result: 'unchanged', action: 'none', ok: true }], 'our own write, said of nothing (no HIDDEN_EDIT)');
    assert.equal(run.code, 0);
    // Nothing is left holding the page: the next edit of the file is published.
    await f.write('guides/acorn.md', REWRAPPED.replace('It is fast.', 'It is fast and small.'));
    const next = await f.sync();
    assert.ok(next.report, next.stderr);
    assert.deepEqual(outcomes(next.report), ['guides/acorn.md pushed']);
  }, PROSE, REWRAPPED);
});

test("a colleague's code line saved a minute after a write stamped across a minute is still held as a hidden edit, not overwritten", async () => {
  await pushedAcrossAMinute(async (f, tick) => {
    tick();
    f.em.admin.editDocument(f.remoteDoc('Acorn').dentryUuid, CODE_EDITED);
    await f.write('guides/acorn.md', LATER);
    // Within the two minutes another writer's record of that time could take to come, the file's edit waits (JUST_EDITED);
    // past them, the time no record explains is a hidden edit.
    for (const [minutes, reason] of [[0, 'JUST_EDITED'], [2, 'HIDDEN_EDIT']] as const) {
      for (let i = 0; i < minutes; i++) tick();
      const run = await f.sync();
      assert.ok(run.report, run.stderr);
      assert.deepEqual(outcomes(run.report), [`guides/acorn.md held ${reason}`]);
      assert.equal(f.remoteDoc('Acorn').markdown?.includes('c9z'), true, "the colleague's code line is still in the knowledge base");
    }
  }, WITH_CODE, CODE_REWRAPPED);
});
