import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture } from '../../helpers/sync-fixture.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502: machine A made a document and announced its first body; the write landed a minute later than the
 * announcement (a slow queue). B, pulling the new document before A's record came, found its time past the
 * announced minute with every block as the write left it: a hidden edit, it said, and published so after A's
 * record. After a colleague's word edit, A took B's version: HIDDEN_EDIT, and every later edit of the prose page
 * held FLATTEN on both machines. (Since soak seed 705, B waits a run for A's record instead: first-body-landed-late.)
 */

/** A promise and the function that settles it. */
function signal(): { readonly done: Promise<void>; readonly fire: () => void } {
  let fire = () => {};
  const done = new Promise<void>((resolve) => (fire = resolve));
  return { done, fire };
}

test("a new document's first body that landed a minute after its announcement is no hidden edit: a colleague's later word edit holds nothing", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  const { sync, tick } = minuteByMinute(em);
  let step: 'idle' | 'creating' | 'written' | 'b-runs' | 'b-decided' = 'idle';
  const bDecided = signal();
  const aRecorded = signal();
  let bRun: Promise<SyncReport> | undefined;
  const gateA = await gateProxy(em.seed.baseUrl, {
    before: async (request) => {
      if (step === 'creating' && request.path.includes('overwriteContent')) {
        // The first body lands a minute after it was announced.
        step = 'written';
        tick();
      } else if (step === 'written' && request.path.includes('appendText')) {
        // Before A's record: B lists and reads the new document, and decides (or waits for that record).
        step = 'b-runs';
        bRun = reported(b);
        await Promise.race([bDecided.done, bRun]);
      }
    },
  });
  const gateB = await gateProxy(em.seed.baseUrl, {
    // B publishes its record after A's.
    before: async (request) => {
      if (step !== 'b-runs' || !request.path.includes('appendText')) return;
      step = 'b-decided';
      bDecided.fire();
      await aRecorded.done;
    },
  });
  const through = (gate: { readonly baseUrl: string }) => ({ config: { service: { baseUrl: gate.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  const b = await createSyncFixture({ shared: em, ...through(gateB) });
  const a = await createSyncFixture({ shared: em, ...through(gateA) });
  try {
    await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
    await a.write('bl.md', '# BL\n\nSome words.\n\nMore words.\n');
    step = 'creating';
    await sync(a);
    aRecorded.fire();
    const said = saidIn(await (bRun as Promise<SyncReport>));
    // Its time past the announced minute a moment ago, the page waits for A's record, which says the minute it bears.
    assert.equal(step, 'b-runs', "B read the document between A's write and A's record, and decided nothing on it");
    assert.equal(await b.read('bl.md').catch(() => undefined), undefined, "B waits for A's record before it takes the page in");
    for (const f of [a, b, a, b]) said.push(...saidIn(await sync(f)));
    assert.deepEqual(said, [], 'nothing to say: nobody edited the document');
    const page = () => a.remoteDoc('BL');
    em.admin.editDocument(page().dentryUuid, (page().markdown ?? '').replace('More words.', 'More words, from the web.'));
    const saidAfter: string[] = [];
    for (const f of [b, a]) saidAfter.push(...saidIn(await sync(f)));
    assert.deepEqual(saidAfter, ['FORMATTING_UNSEEN'], "the colleague's words are named once, and no hidden edit");
    await a.write('bl.md', (await a.read('bl.md')).replace('Some words.', 'Some words, edited on A.'));
    const pushed = await sync(a);
    assert.deepEqual(pushed.results.map((r) => (r.ok ? [r.result, r.reason] : [r.code])), [['pushed', undefined]], "A's next edit of the prose page is published");
    await sync(b);
    assert.equal(await b.read('bl.md'), '# BL\n\nSome words, edited on A.\n\nMore words, from the web.\n');
  } finally {
    await a.close();
    await b.close();
    await gateA.close();
    await gateB.close();
    await em.close();
  }
});
