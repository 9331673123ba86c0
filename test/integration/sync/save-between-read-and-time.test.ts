import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/index.js';
import { gateProxy, onceAt } from '../../helpers/gate-proxy.js';
import { localCycleInProcess as localCycle } from '../../helpers/in-process-sync.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Soak seed 711 (keyed): machine A's daemon, its file edited, ran a local cycle (no listing). It read the document's
 * blocks, and then asked the document's time (one call, before a write could destroy what reads cannot show). A
 * colleague's visible word edit was saved between the two: the time was of that save, the blocks of before it, so
 * the time had moved while every block stayed the same, and A held the page HIDDEN_EDIT, a prose page nothing of
 * which reads cannot show, with every later edit of A's there. The interleaving is forced with a proxy: the call
 * for the time waits until the colleague has saved, a minute later.
 */

const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);
const TEXT = '# Notes\n\nFirst paragraph.\n\nSecond paragraph.\n';
const mine = (text: string): string => text.replace('First paragraph.', 'First paragraph, mine.');
const theirs = (text: string): string => text.replace('Second paragraph.', 'Second paragraph, theirs.');
const MINE = mine(TEXT);
const THEIRS = theirs(TEXT);
const BOTH = mine(THEIRS);
/** Long enough that the file, moved with its edit, is still the same file (decide/similarity.ts). */
const LONG = `${TEXT}\nThird paragraph.\n\nFourth paragraph.\n\nFifth paragraph.\n`;

/** What a test does once the colleague's save waits at the run's look: the fixture, and the clock moved on a minute. */
type Gated = { readonly f: SyncFixture; readonly tick: () => void };

/**
 * `synced` (with `also`) synced a minute ago, `change` made to the files since, and a colleague's save of `theirs`
 * to the document armed to land, a minute later, as the next run asks the document's time (getNode): `body`
 * makes that run and checks what came of it (`fired`: the save landed there).
 */
async function colleagueAtTheLook(
  synced: { readonly text: string; readonly also?: Readonly<Record<string, string>> },
  change: (f: SyncFixture) => Promise<void>,
  theirsText: string,
  body: (gated: Gated & { readonly fired: () => boolean }) => Promise<void>,
): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  em.admin.freezeClock(EPOCH);
  let minutes = 0;
  const tick = (): void => em.admin.setClockOffset(++minutes * 60_000);
  const gate = onceAt((request) => request.method === 'GET' && request.path.startsWith('/v2.0/wiki/nodes/'));
  const proxy = await gateProxy(em.seed.baseUrl, gate.hooks);
  const f = await createSyncFixture({ shared: em, config: { service: { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  try {
    await f.write('notes.md', synced.text);
    for (const [path, text] of Object.entries(synced.also ?? {})) await f.write(path, text);
    assert.equal((await f.sync()).code, 0);
    const doc = f.remoteDoc('Notes');
    tick();
    await change(f);
    gate.arm(async () => {
      tick();
      em.admin.editDocument(doc.dentryUuid, theirsText);
    });
    await body({ f, tick, fired: () => gate.fired });
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
}

const AT_THE_LOOK = "the colleague saved between the run's read and its look at the time";

test("a colleague's visible save between a run's read and its look at the time is merged, not held as a hidden edit", async () => {
  await colleagueAtTheLook({ text: TEXT }, (f) => f.write('notes.md', MINE), THEIRS, async ({ f, tick, fired }) => {
    const report = await localCycle(f);
    assert.ok(fired(), AT_THE_LOOK);
    assert.doesNotMatch(JSON.stringify(report.results), /HIDDEN_EDIT/, 'no hidden edit said');
    assert.deepEqual(
      report.results.map((r) => (r.ok ? `${r.path} ${r.result}` : `${r.path} failed ${r.code}`)),
      ['notes.md merged'],
    );
    assert.equal(await f.read('notes.md'), BOTH, "the file has the colleague's edit and keeps its own");
    assert.equal(f.remoteDoc('Notes').markdown, BOTH, 'the knowledge base has both');

    tick();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(next.report?.results.filter((r) => !r.ok || r.result !== 'unchanged'), [], 'nothing left to do, nothing held');
  });
});

// The same save met by a run that listed: the look at the time again before an overwrite (its listed minute over) is
// asked after the read too, and found the save's minute over the blocks of before it.
test("a colleague's visible save between a run's read and its look again before an overwrite is merged, not held as a hidden edit", async () => {
  await colleagueAtTheLook({ text: TEXT }, (f) => f.write('notes.md', MINE), THEIRS, async ({ f, fired }) => {
    const run = await f.sync();
    assert.ok(fired(), AT_THE_LOOK);
    assert.equal(run.code, 0, JSON.stringify(run.report?.results));
    assert.doesNotMatch(JSON.stringify(run.report?.results), /HIDDEN_EDIT/, 'no hidden edit said');
    assert.equal(await f.read('notes.md'), BOTH, "the file has the colleague's edit and keeps its own");
    assert.equal(f.remoteDoc('Notes').markdown, BOTH, 'the knowledge base has both');
  });
});

// The same save met by the delete of a file whose document a colleague edits: the edit beats the delete, and the file
// comes back with it, but with no hidden edit to hold its next edit (a time the read did not account for).
test("a colleague's visible save between the read and the look at the time of a file deleted here restores it with that save, and holds nothing", async () => {
  const kept = { 'other.md': '# Other\n\nKept, so the folder is not emptied.\n' };
  await colleagueAtTheLook({ text: TEXT, also: kept }, (f) => f.remove('notes.md'), THEIRS, async ({ f, tick, fired }) => {
    const report = await localCycle(f);
    assert.ok(fired(), AT_THE_LOOK);
    assert.doesNotMatch(JSON.stringify(report.results), /HIDDEN_EDIT/, 'no hidden edit said');
    assert.equal(await f.read('notes.md'), THEIRS, "the file comes back with the colleague's edit");

    tick();
    await f.write('notes.md', BOTH);
    const next = await f.sync();
    assert.equal(next.code, 0, JSON.stringify(next.report?.results));
    assert.equal(f.remoteDoc('Notes').markdown, BOTH, "the file's next edit is published");
  });
});

// …and by the move of a file edited here into another folder, which makes the document anew and deletes the old one:
// a hidden edit there holds the move (MOVE_LOSSY), a visible save is moved along.
test("a colleague's visible save between the read and the look at the time of a file moved and edited here goes along with the move, held by nothing", async () => {
  const moved = async (f: SyncFixture): Promise<void> => {
    await f.write('moved/notes.md', mine(LONG));
    await f.remove('notes.md');
  };
  await colleagueAtTheLook({ text: LONG }, moved, theirs(LONG), async ({ f, fired }) => {
    const report = await localCycle(f);
    assert.ok(fired(), AT_THE_LOOK);
    assert.deepEqual(report.results.filter((r) => !r.ok || r.result === 'held'), [], 'no move held');
    assert.doesNotMatch(JSON.stringify(report.results), /HIDDEN_EDIT/, 'no hidden edit said');
    assert.equal(await f.read('moved/notes.md'), mine(theirs(LONG)), "the moved file has the colleague's edit and keeps its own");
    assert.deepEqual(f.remoteDocs().map((node) => node.markdown), [mine(theirs(LONG))], 'one document, with both edits');
  });
});
