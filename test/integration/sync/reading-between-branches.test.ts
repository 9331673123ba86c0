import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { localFiles, remotelyPresent } from '../../helpers/reliability.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Model seed 7337 (issue 44): machine B wrote a link's address (reads cannot show it) between machine A's read of the
 * page and A's write of a new paragraph, which replaced it (no conditional write). A was stopped before its record;
 * B then read A's write plainly, kept its address in its file (reads could not tell it was gone) and published that
 * reading, made from its own write. A's record came after: a version made from the page before B's write. Folded
 * over B's reading, it did not look like the other branch of that page, and the machine that synced next took A's
 * version for the page's latest made from B's: B's address, not in it, was taken for removed, and lost everywhere.
 *
 * The reading stands between the two branches: the one it was made from (B's write) is the branch A's write
 * overtook, and whichever machine syncs next merges the two against the page both were made from.
 */
const PAGE = '# Guide\n\nRead [the manual](https://example.com/manual) first.\n\nSecond paragraph.\n';
const ADDRESS = 'https://example.com/manual-b';
const PARAGRAPH = 'A new paragraph from A.';
const LATER = 'Second paragraph, edited on A later.';

/** The race staged; `then` runs the machines on from B's plain reading of A's write and A's record after it. */
async function readingBetweenBranches(keyless: boolean, then: (a: SyncFixture, b: SyncFixture, sync: (f: SyncFixture) => Promise<SyncReport>) => Promise<void>): Promise<void> {
  let guideKey: string | undefined;
  const gate = onceAt((request) => guideKey !== undefined && request.path.includes(`${guideKey}/overwriteContent`));
  await withGatedPair(keyless, gate.hooks, async (em, b, a) => {
    await publishedOnBoth(em, a, b, { 'guide.md': PAGE, 'other.md': '# Other\n\nWords.\n' });
    guideKey = a.remoteDoc('Guide').dentryUuid;
    const { sync, tick } = minuteByMinute(em);
    await a.write('guide.md', PAGE.replace('first.\n', `first.\n\n${PARAGRAPH}\n`));
    await b.write('guide.md', PAGE.replace('https://example.com/manual', ADDRESS));
    // B's write lands between A's read of the page and A's write of it; A is stopped before its record.
    gate.arm(() => reported(b));
    tick();
    assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).code, 0, 'A is killed between its write and its record');
    assert.ok(gate.fired, "B's write came between A's read of the page and A's write of it");
    assert.ok(remotelyPresent(a, PARAGRAPH) && !remotelyPresent(a, ADDRESS), "A's write replaced B's");
    await sync(b);
    assert.match(await b.read('guide.md'), new RegExp(PARAGRAPH), "B read A's write before A's record came");
    await sync(a);
    await then(a, b, sync);
    for (const [words, what] of [[ADDRESS, "B's address"], [PARAGRAPH, "A's paragraph"]] as const) {
      assert.ok(remotelyPresent(a, words), `the page holds ${what}`);
      assert.match(await a.read('guide.md'), new RegExp(words), `A's file holds ${what}`);
      assert.match(await b.read('guide.md'), new RegExp(words), `B's file holds ${what}`);
    }
    assert.equal(await a.read('guide.md'), await b.read('guide.md'), 'the machines agree');
    for (const f of [a, b]) assert.deepEqual([...(await localFiles(f.root)).keys()].filter((path) => path.includes('.conflict-')), [], 'no conflict copy');
  });
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a link's address overwritten by a write read plainly before its record came: B syncs next (${team})`, async () => {
    await readingBetweenBranches(keyless, async (a, b, sync) => {
      for (const f of [b, a, b, a]) assert.deepEqual(saidIn(await sync(f)), [], 'nothing held');
    });
  });

  test(`…A edits again and syncs next, as in seed 7337 (${team})`, async () => {
    await readingBetweenBranches(keyless, async (a, b, sync) => {
      await a.write('guide.md', (await a.read('guide.md')).replace('Second paragraph.', LATER));
      for (const f of [a, b, a, b]) assert.deepEqual(saidIn(await sync(f)), [], 'nothing held');
      assert.ok(remotelyPresent(a, LATER), "the page holds A's later edit");
      assert.match(await b.read('guide.md'), new RegExp(LATER), "B's file holds A's later edit");
    });
  });

  // A push alone takes nothing in: sent, the file would overwrite B's branch again, and no record would say it was.
  // Run as long after A's last append (KBSYNC_STATE_GRACE_MS=0): a run that will write reads the state first then.
  for (const next of ['A', 'B'] as const) {
    test(`…A edits again and pushes alone first: held, then ${next} syncs next (${team})`, async () => {
      await readingBetweenBranches(keyless, async (a, b, sync) => {
        await a.write('guide.md', (await a.read('guide.md')).replace('Second paragraph.', LATER));
        const pushed = await reported(a, ['--push'], { KBSYNC_STATE_GRACE_MS: '0' });
        assert.ok(!remotelyPresent(a, LATER), 'the push sent nothing');
        assert.deepEqual(saidIn(pushed), ['REMOTE_EDITED'], 'the push says why');
        // A's two-way run merges, though the document's time has not moved since the hold; B's repair meets A's edit unsent.
        for (const f of next === 'A' ? [a, b, a, b] : [b, a, b, a]) assert.deepEqual(saidIn(await sync(f)), [], 'nothing held');
        assert.ok(remotelyPresent(a, LATER), "the page holds A's later edit");
      });
    });
  }
}
