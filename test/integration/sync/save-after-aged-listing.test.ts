import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atFirstReadOf } from '../../helpers/gate-proxy.js';
import { ledgerRows } from '../../helpers/reliability.js';
import { minuteByMinute, publishedOnBoth, saidIn, withBothGated } from '../../helpers/workstation-pair.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import type { RunningEmulator } from '../../helpers/emulator.js';

/**
 * Soak 743 and 744: a run listed a page, and read it minutes later (a long run, a slow queue; in the soak's fast
 * clock, seconds). A colleague saved a paragraph in between: the read showed it, but the time recorded for that
 * reading was the listing's, older, and the next listing's later minute, every block the same, was said HIDDEN_EDIT
 * of a page whose every edit a read had shown, and every later edit of it was held. A page nobody had touched for
 * minutes was not asked its time again after the read (only one stamped in the last minutes was).
 */
const PAGE = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

type Scene = {
  readonly name: string;
  /** What happens before the gated run: the change the run's listing shows. */
  readonly before: (em: RunningEmulator, a: SyncFixture, b: SyncFixture) => Promise<void>;
  /** The path A has the page at after the run. */
  readonly path: string;
};

const colleagueAdds = (em: RunningEmulator, a: SyncFixture, title: string, words: string): void => {
  const doc = a.remoteDoc(title);
  em.admin.editDocument(doc.dentryUuid, `${doc.markdown ?? ''}\n${words}\n`);
};

/** Four minutes on the service's clock, and a colleague's second paragraph: what comes between A's listing and its read. */
const minutesAndASave = (em: RunningEmulator, a: SyncFixture, tick: () => void, title: string): void => {
  for (let i = 0; i < 4; i++) tick();
  colleagueAdds(em, a, title, 'A colleague saved this while A was busy.');
};

const scenes: readonly Scene[] = [
  {
    name: 'a pull of a synced page',
    path: 'guide.md',
    before: async (em, a) => colleagueAdds(em, a, 'Guide', 'A colleague was here first.'),
  },
  {
    name: 'a restore of a page deleted here',
    path: 'guide.md',
    before: async (em, a) => {
      await a.remove('guide.md');
      colleagueAdds(em, a, 'Guide', 'A colleague was here first.');
    },
  },
  {
    name: "a colleague's page new to this machine",
    path: 'Notes.md',
    before: async (em) => {
      em.admin.createDocument({ name: 'Notes', markdown: '# Notes\n\nA colleague made this page.\n' });
    },
  },
];

for (const keyless of [false, true]) {
  for (const scene of scenes) {
    test(`a colleague's save between a listing and a read minutes later is no hidden edit: ${scene.name}${keyless ? ' (keyless team)' : ''}`, async () => {
      const lateRead = atFirstReadOf();
      await withBothGated(keyless, [lateRead.hooks, undefined], async (em, a, b) => {
        const clock = minuteByMinute(em);
        await publishedOnBoth(em, a, b, { 'guide.md': PAGE, 'other.md': '# Other\n\nA page both have.\n' });
        for (let i = 0; i < 5; i++) clock.tick();
        await scene.before(em, a, b);
        const title = scene.path === 'Notes.md' ? 'Notes' : 'Guide';
        for (let i = 0; i < 5; i++) clock.tick();
        // Between A's listing and its read: four minutes, and a colleague's second paragraph.
        lateRead.arm(a.remoteDoc(title).dentryUuid, () => minutesAndASave(em, a, clock.tick, title));
        const pulled = await clock.sync(a);
        assert.ok(lateRead.fired, "A read the page after the colleague's second save");
        assert.deepEqual(saidIn(pulled).filter((code) => code !== 'FORMATTING_UNSEEN'), [], `every change the page had, the read showed: ${JSON.stringify(pulled.results)}`);
        assert.match(await a.read(scene.path), /while A was busy/, 'A has the second save');
        for (let i = 0; i < 2; i++) assert.deepEqual(saidIn(await clock.sync(a)), [], 'nobody edited the page since: nothing to say');
        assert.equal(ledgerRows(a).find((row) => row.path === scene.path)?.inexactHidden, false, 'no hidden edit recorded');
        await a.write(scene.path, (await a.read(scene.path)).replace('while A was busy.', 'while A was busy. And A agrees.'));
        const pushed = await clock.sync(a);
        assert.deepEqual(
          pushed.results.filter((r) => r.path === scene.path).map((r) => (r.ok ? r.result : r.code)),
          ['pushed'],
          `A's next edit is published, not held: ${JSON.stringify(pushed.results)}`,
        );
        assert.match(a.remoteDoc(title).markdown ?? '', /And A agrees/);
      });
    });
  }
}

/**
 * The other side: the time such a read is recorded with still bounds what came after it. A colleague's later change of
 * a link's address, which reads do not show, is found, and the next local edit of the restored file held over it.
 */
test("a colleague's link edit after a restore read long after its listing is still found", async () => {
  const lateRead = atFirstReadOf();
  await withBothGated(false, [lateRead.hooks, undefined], async (em, a, b) => {
    const clock = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'guide.md': '# Guide\n\nSee [the manual](https://example.com/manual).\n', 'other.md': '# Other\n\nWords.\n' });
    for (let i = 0; i < 5; i++) clock.tick();
    await a.remove('guide.md');
    colleagueAdds(em, a, 'Guide', 'A colleague was here first.');
    for (let i = 0; i < 5; i++) clock.tick();
    lateRead.arm(a.remoteDoc('Guide').dentryUuid, () => minutesAndASave(em, a, clock.tick, 'Guide'));
    await clock.sync(a);
    assert.ok(lateRead.fired);
    assert.match(await a.read('guide.md'), /while A was busy/, 'restored, with both saves');
    clock.tick();
    clock.tick();
    const doc = a.remoteDoc('Guide');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('example.com/manual', 'example.com/handbook'));
    // Past the minutes in which another kbsync machine's record of such a change may come (then it is a colleague's).
    for (let i = 0; i < 3; i++) clock.tick();
    assert.deepEqual(saidIn(await clock.sync(a)), ['HIDDEN_EDIT'], "the colleague's new link address is found");
    await a.write('guide.md', (await a.read('guide.md')).replace('See [the manual]', 'Read [the manual]'));
    assert.deepEqual(saidIn(await clock.sync(a)), ['HIDDEN_EDIT'], 'and the next local edit held over it');
    assert.match(a.remoteDoc('Guide').markdown ?? '', /example\.com\/handbook/, "the colleague's link stays");
  });
});
