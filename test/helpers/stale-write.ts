import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { onceAt, type Passing, type ProxyAnswer } from './gate-proxy.js';
import type { SyncFixture } from './sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair } from './workstation-pair.js';

/** The page both machines start from (and the version both branches of the race are made from). */
export const GUIDE = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

export type Clock = ReturnType<typeof minuteByMinute>;

/** Model seed 6011's race, as a test stages it (see staleWriteOverPulledSave). */
export type StaleWriteRace = {
  readonly keyless: boolean;
  /** A's run is killed right after its write, before its record (a daemon stopped there publishes it with its next run). */
  readonly stopped: boolean;
  /** A's edit of its file. */
  readonly edit: (text: string) => string;
  /** The colleague's save in the web editor, of the document's Markdown. */
  readonly save: (markdown: string) => string;
  /** An answer A's proxy gives a call itself, before the service sees it (a fault the test switches on). */
  readonly fault?: (request: Passing) => ProxyAnswer | undefined;
};

/**
 * Model seed 6011 (issue 44), staged: a colleague saves between machine A's read of the guide and A's write of it (the
 * window the contract leaves: no conditional write), and machine B pulls that save before A's write replaces it. Both
 * versions are then made from GUIDE, and the document holds A's write. `then` runs the machines on from there.
 */
export async function staleWriteOverPulledSave(race: StaleWriteRace, then: (em: RunningEmulator, a: SyncFixture, b: SyncFixture, clock: Clock) => Promise<void>): Promise<void> {
  let guideKey: string | undefined;
  const gate = onceAt((request) => guideKey !== undefined && request.path.includes(`${guideKey}/overwriteContent`));
  const hooks = { before: (request: Passing) => race.fault?.(request) ?? gate.hooks.before?.(request) };
  await withGatedPair(race.keyless, hooks, async (em, b, a) => {
    await publishedOnBoth(em, a, b, { 'guide.md': GUIDE, 'other.md': '# Other\n\nWords.\n' });
    const page = () => a.remoteDoc('Guide');
    guideKey = page().dentryUuid;
    const clock = minuteByMinute(em);
    await a.write('guide.md', race.edit(GUIDE));
    gate.arm(async () => {
      em.admin.editDocument(page().dentryUuid, race.save(page().markdown ?? ''));
      await reported(b);
    });
    if (race.stopped) {
      clock.tick();
      assert.equal((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).signal, 'SIGKILL', "A's run stopped after its write, before its record");
    } else await clock.sync(a);
    assert.ok(gate.fired, "B's run came between A's read of the guide and A's write of it");
    assert.equal(await b.read('guide.md'), race.save(GUIDE), 'B pulled the save before A overwrote it');
    assert.equal(page().markdown, race.edit(GUIDE), "A's write, decided before the save, replaced it");
    await then(em, a, b, clock);
  });
}
