import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 5995 (issue 44): machine A made a page, then added emphasis to a word in it, which reads cannot show.
 * B, which had not had the page yet, read it a minute after that write, before A's record of it came, and took it
 * in from A's first record (the create's source, whose blocks the page still shows). README ("A write read before
 * its record came") promises that such a reading never stands for those blocks over the writer's exact record.
 *
 * B's record is exact (A's first version, as its source says) and agreed a minute after A's write, so the
 * agreements' times made A's version the older (decide/body.ts newerVersion: an exact version of another body of
 * the same blocks is a write of its own, seed 4011), and B kept the plain word for good. A's record says what its
 * version was made from (DocRecord `b`): B's very version. A version made from this record's is a later one of it,
 * whatever the clocks say.
 */
const PAGE = '# Acorn\n\nA tiny, fast JavaScript parser.\n\nIt takes any number of plugins.\n';
const EMPHASIS = PAGE.replace('any number', 'any *number*');

for (const keyless of [false, true]) {
  test(`a write of emphasis read before its record came reaches the reader when the record comes (${keyless ? 'keyless' : 'keyed'})`, async () => {
    // A's append of its record of the emphasis waits for a minute to pass and B's whole run.
    const gate = onceAt((request) => request.path.includes('appendText'));
    await withGatedPair(keyless, gate.hooks, async (em, b, a) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
      await a.write('acorn.md', PAGE);
      await sync(a);
      await a.write('acorn.md', EMPHASIS);
      gate.arm(async () => {
        tick();
        await reported(b);
      });
      await sync(a);
      assert.ok(gate.fired, "B read the page before A's record");
      const said: string[] = [];
      for (const f of [b, a, b]) said.push(...saidIn(await sync(f)));
      assert.equal(await a.read('acorn.md'), EMPHASIS);
      assert.equal(await b.read('acorn.md'), EMPHASIS, "B gets A's emphasis");
      assert.deepEqual(said, [], 'nothing to say: nobody edited the page in the web editor');
    });
  });
}
