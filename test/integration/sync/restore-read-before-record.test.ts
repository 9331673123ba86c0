import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { publishedOnBoth, reported, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 500: machine B deleted a file while A wrote its document. B's run read the state before A's record of
 * that write came and read the document after the write: it restored the file from the plain reading, in doubt of
 * what it took in, and published that record after A's. A's exact record carried its own front matter (`hc`), so
 * B's reading stood over it, and B's next run, finding the document's time moved past the one it had listed, said
 * HIDDEN_EDIT of A's write.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

/** Every code a run's results say: a hold's reason, or the notice a detail opens with. */
const saidIn = (report: SyncReport): string[] => report.results.flatMap((r) => (r.ok ? [r.reason ?? r.detail?.match(/^[A-Z_]+(?=:)/)?.[0] ?? ''] : [r.code])).filter((code) => code !== '');

test("a file restored from a reading of another machine's write, read before that write's record came: no HIDDEN_EDIT, and its next edit is published", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  let aWrites: (() => Promise<unknown>) | undefined;
  let guideKey = '';
  let minutes = 2;
  const gate = await gateProxy(em.seed.baseUrl, {
    // B's read of the page waits for A's whole run (its write and its record): B read the state before both.
    before: async (request) => {
      if (!request.path.includes(`${guideKey}/blocks`) || !aWrites) return;
      const run = aWrites;
      aWrites = undefined;
      await run();
    },
  });
  const a = await createSyncFixture({ shared: em });
  const b = await createSyncFixture({ shared: em, config: { service: { baseUrl: gate.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  const sync = (f: SyncFixture) => {
    em.admin.setClockOffset(++minutes * 60_000);
    return reported(f);
  };
  const page = () => a.remoteDoc('Guide');
  try {
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT, 'other.md': '# Other\n\nWords.\n' });
    // A colleague's word edit: both take it in plainly (each keeps its front matter, `hc`).
    em.admin.editDocument(page().dentryUuid, (page().markdown ?? '').replace('First paragraph.', 'First paragraph, from the web.'));
    for (const f of [a, b]) await sync(f);
    guideKey = page().dentryUuid;
    await b.remove('guide.md');
    await a.write('guide.md', `${await a.read('guide.md')}\nA paragraph from A.\n`);
    aWrites = async () => {
      em.admin.setClockOffset(++minutes * 60_000);
      await reported(a);
    };
    const restored = await sync(b);
    assert.equal(aWrites, undefined, "B read the page after A's write and record");
    assert.deepEqual(restored.results.map((r) => (r.ok ? r.action : r.code)), ['restore']);
    const said = [];
    for (const f of [a, b, a, b]) said.push(...saidIn(await sync(f)));
    assert.deepEqual(said, [], 'nothing to say: the file holds the one write made since');
    assert.equal(await b.read('guide.md'), await a.read('guide.md'));
    await b.write('guide.md', (await b.read('guide.md')).replace('Second paragraph.', 'Second paragraph, edited on B.'));
    const pushed = await sync(b);
    assert.deepEqual(pushed.results.map((r) => (r.ok ? [r.result, r.reason] : [r.code])), [['pushed', undefined]], "B's next edit is published");
    await sync(a);
    assert.match(await a.read('guide.md'), /edited on B[\s\S]*A paragraph from A/);
  } finally {
    await a.close();
    await b.close();
    await gate.close();
    await em.close();
  }
});
