import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 500: machine B deleted a file while A wrote its document. B's run read the state before A's record of
 * that write came and read the document after the write: it restored the file from the plain reading, in doubt of
 * what it took in, and published that record after A's. A's exact record carried its own front matter (`hc`), so
 * B's reading stood over it, and B's next run, finding the document's time moved past the one it had listed, said
 * HIDDEN_EDIT of A's write.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

type Pair = { readonly em: RunningEmulator; readonly a: SyncFixture; readonly b: SyncFixture };

/**
 * Two machines with guide.md (and another file: a root left with no file refuses deletes, EMPTY_LOCAL) published on both; B's first
 * read of the guide's blocks after `gate.arm` runs the armed step first; `clock` moves the service's minutes on.
 */
async function withGuideOnBoth(fn: (pair: Pair, gate: ReturnType<typeof onceAt>, clock: ReturnType<typeof minuteByMinute>) => Promise<void>): Promise<void> {
  let guideKey: string | undefined;
  const gate = onceAt((request) => guideKey !== undefined && request.path.includes(`${guideKey}/blocks`));
  await withGatedPair(false, gate.hooks, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT, 'other.md': '# Other\n\nWords.\n' });
    guideKey = a.remoteDoc('Guide').dentryUuid;
    await fn({ em, a, b }, gate, minuteByMinute(em));
  });
}

test("a file restored from a reading of another machine's write, read before that write's record came: no HIDDEN_EDIT, and its next edit is published", async () => {
  await withGuideOnBoth(async ({ em, a, b }, gate, { sync, tick }) => {
    const page = () => a.remoteDoc('Guide');
    // A colleague's word edit: both take it in plainly (each keeps its front matter, `hc`).
    em.admin.editDocument(page().dentryUuid, (page().markdown ?? '').replace('First paragraph.', 'First paragraph, from the web.'));
    for (const f of [a, b]) await sync(f);
    await b.remove('guide.md');
    // B's read of the page waits for A's whole run (its write and its record): B read the state before both.
    await a.write('guide.md', `${await a.read('guide.md')}\nA paragraph from A.\n`);
    gate.arm(async () => {
      tick();
      await reported(a);
    });
    const restored = await sync(b);
    assert.ok(gate.fired, "B read the page after A's write and record");
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
  });
});

// Soak seed 601: B deleted a file; a colleague wrote in its document after B's run listed it and before it read it.
// The restore recorded the time the listing showed, the one last agreed: the next listing's later minute, every
// block the same, was said HIDDEN_EDIT.
test("a file restored from a read that came after a colleague's edit its run had not listed: no HIDDEN_EDIT after", async () => {
  await withGuideOnBoth(async ({ em, a, b }, gate, { sync, tick }) => {
    const page = () => a.remoteDoc('Guide');
    await b.remove('guide.md');
    // B's run lists the page unchanged, and reads it (to delete it) after a colleague's edit in a later minute.
    gate.arm(async () => {
      tick();
      em.admin.editDocument(page().dentryUuid, (page().markdown ?? '').replace('First paragraph.', 'First paragraph, from the web.'));
    });
    const restored = await sync(b);
    assert.ok(gate.fired);
    assert.deepEqual(restored.results.map((r) => (r.ok ? r.action : r.code)), ['restore']);
    assert.match(await b.read('guide.md'), /from the web/, 'the edit beats the delete: the file is back');
    const said = [];
    for (const f of [b, a, b]) said.push(...saidIn(await sync(f)));
    assert.deepEqual(said, [], 'nobody edited where reads cannot see');
  });
});
