import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502: machine B read A's write (a visible change) before A's record of it was in the shared state, so
 * B took it as a colleague's edit, from a plain reading, without the front matter A's record carries. B's record of
 * that reading, published after A's, must not stand for a version without A's front matter.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';
const EDITED = '---\ntags: [alpha]\n---\n# Guide\n\nFirst paragraph, edited.\n\nSecond paragraph.\n';

/** A's edit of TEXT written, and A killed before its record; B syncs in between. */
async function readBeforeRecord(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<(f: SyncFixture) => Promise<unknown>> {
  await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
  await a.write('guide.md', EDITED);
  const killed = await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
  assert.notEqual(killed.code, 0, 'A is killed between its write and its record');
  const { sync } = minuteByMinute(em);
  await sync(b);
  return sync;
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a write read by the other machine before its record came keeps its front matter on both (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const sync = await readBeforeRecord(em, a, b);
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await a.read('guide.md'), EDITED, 'A keeps its front matter');
      assert.equal(await b.read('guide.md'), EDITED, "B gets A's front matter");
    });
  });

  test(`…and then renamed by its writer: the follower gets the front matter at the new name (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const sync = await readBeforeRecord(em, a, b);
      await a.write('guide-2.md', await a.read('guide.md'));
      await a.remove('guide.md');
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await a.read('guide-2.md'), EDITED, 'A keeps its front matter');
      assert.equal(await b.read('guide-2.md'), EDITED, "B gets A's front matter");
      assert.equal(await b.exists('guide.md'), false);
    });
  });
}

// Model seed 6034: the same race with a write of what a plain reading cannot show (a code line, words in bold). B's
// reading, agreed a minute after A's write, stood over A's exact record of the very blocks it read, which A published
// only with its next run: the code line and the bold stayed on A alone.
test('a write of code and bold words read by the other machine before its record came reaches it exactly (keyless)', async () => {
  const CODED = '# Guide\n\nFirst paragraph.\n\n```sh\nnpm install\n```\n\nSecond paragraph.\n';
  const written = CODED.replace('npm install\n', 'npm install\nnpm test\n').replace('Second paragraph.', 'Second paragraph, **now bold**.');
  await withWorkstationPair(true, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'guide.md': CODED });
    await a.write('guide.md', written);
    assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).code, 0, 'A is killed between its write and its record');
    const { sync } = minuteByMinute(em);
    await sync(b);
    assert.doesNotMatch(await b.read('guide.md'), /npm test/, 'B read the write plainly: the code line unseen');
    for (const f of [a, b, a, b]) await sync(f);
    assert.equal(await a.read('guide.md'), written);
    assert.equal(await b.read('guide.md'), written, "B gets A's code line and bold words");
  });
});

// Soak seed 502: A published a front matter of its own while B, which had read the shared state before A's record
// came, wrote a body edit of its own. B's version still had the front matter A's change replaced: taken for B's
// change, it undid A's front matter on every machine.
test("a body edit made without seeing another machine's new front matter keeps that front matter on both", async () => {
  // B's write waits for A's whole run: B planned from the state as it was before A's record.
  const gate = onceAt((request) => request.path.includes('/overwriteContent'));
  await withGatedPair(false, gate.hooks, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
    const headed = `---\ntags: [alpha]\n---\n${TEXT}`;
    await a.write('guide.md', headed);
    await b.write('guide.md', TEXT.replace('Second paragraph.', 'Second paragraph, edited on B.'));
    gate.arm(() => reported(a));
    await reported(b);
    assert.ok(gate.fired, "A's run came between B's plan and B's write");
    const { sync } = minuteByMinute(em);
    for (const f of [a, b, a, b]) await sync(f);
    const both = `---\ntags: [alpha]\n---\n${TEXT.replace('Second paragraph.', 'Second paragraph, edited on B.')}`;
    assert.equal(await a.read('guide.md'), both, "A keeps its front matter and takes B's edit");
    assert.equal(await b.read('guide.md'), both, "B gets A's front matter and keeps its edit");
  });
});
