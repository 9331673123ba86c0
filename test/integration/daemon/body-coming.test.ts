import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EDITED, killedBeforeBody } from '../../helpers/held-move.js';
import { reported, withArmedPair, type ArmedPair } from '../../helpers/workstation-pair.js';
import { withInProcessDaemon, type InProcessDaemon } from './in-process-daemon.js';

/**
 * Issue 44: a follower of a moved page that reads the new document empty waits for its maker's first body
 * (BODY_COMING), up to two minutes of the service's clock. Nothing of the wait is recorded, so every daemon cycle
 * decided it afresh and said it again: a warning (and a desktop notice) each sweep while it stood. Said once per
 * standing wait; its end (the body merged, or the document filled from the file) is said once, as what it did.
 */

/** B's daemon lines about the moved page, from line `from` on (info and above: what a person reads). */
const saidOfPage = (d: InProcessDaemon, from = 0): string[] => d.said(from).filter((line) => line.startsWith('yaml.md'));

/** B's daemon, its first sweep past, waiting for the body of the page A moved (killedBeforeBody); several cycles with no news. */
async function waitingDaemon(pair: ArmedPair, fn: (d: InProcessDaemon, key: string) => Promise<void>): Promise<void> {
  const key = await killedBeforeBody(pair);
  await withInProcessDaemon(pair.b, async (d) => {
    assert.deepEqual(saidOfPage(d).map((line) => line.replace(/:.*/s, '')), ['yaml.md'], d.said().join('\n'));
    assert.match(saidOfPage(d)[0] ?? '', /^yaml\.md: held: .*its document is the new one another kbsync machine made/);
    // Sweeps and a local cycle, the service's clock still within the two minutes: nothing new to say.
    for (let n = 0; n < 4; n += 1) await d.wait(10);
    await d.changed();
    assert.deepEqual(saidOfPage(d).length, 1, `said once while it stands:\n${d.said().join('\n')}`);
    assert.equal(await pair.b.read('yaml.md'), EDITED, 'the file keeps the page meanwhile');
    await fn(d, key);
  });
}

test("the daemon says a followed move's wait for its first body once, and the body merged once (keyed)", async () => {
  await withArmedPair(false, () => false, async (pair) => {
    await waitingDaemon(pair, async (d) => {
      await reported(pair.a);
      const from = d.logs.length;
      for (let n = 0; n < 4; n += 1) await d.wait(10);
      // A's body is the page as both last agreed: B's edit of it is what goes on.
      assert.deepEqual(saidOfPage(d, from), ['yaml.md: sent to the knowledge base'], d.said(from).join('\n'));
      assert.equal(pair.a.remoteDoc('Yaml').markdown, EDITED, "B's edit reaches the document A filled");
    });
  });
});

test('the daemon says that wait once, and its end once when the maker never comes back and the file fills the document (keyed)', async () => {
  await withArmedPair(false, () => false, async (pair) => {
    await waitingDaemon(pair, async (d, key) => {
      pair.tick();
      pair.tick();
      const from = d.logs.length;
      for (let n = 0; n < 4; n += 1) await d.wait(10);
      assert.deepEqual(saidOfPage(d, from), ['yaml.md: sent to the knowledge base'], d.said(from).join('\n'));
      assert.equal(pair.em.admin.dump().nodes.find((node) => node.dentryUuid === key)?.markdown, EDITED, 'the page is in its new document');
    });
  });
});
