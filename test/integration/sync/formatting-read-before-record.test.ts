import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 715 (issue 44, keyless): machine B formatted a word in a page (reads cannot show it) while also changing
 * words in another paragraph, and wrote it. A, whose run had read the shared state before B's record came, read that
 * write: it took the changed words in from the plain reading, kept the word plain, and recorded that reading as in
 * doubt (`l`). B's exact record came next, of the very blocks A read, but its body differed from A's reading (the
 * formatting), so decide/body.ts newerVersion took it for a write of B's own that reads cannot show (the guard of
 * model seed 4011) and let the agreements' times decide: A's reading, agreed after B's write, stood. The two files
 * differed for good, nothing held. A reading in doubt says less of those blocks than their writer's exact record,
 * whichever was agreed first (README "A write read before its record came").
 */
const PAGE = '# Optionator\n\nIt returns the generated help text.\n\nPositional arguments are all the values left.\n';
const WRITTEN = PAGE.replace('generated help', 'generated `help`').replace('all the values', 'all the other values');

for (const keyless of [false, true]) {
  test(`a reading in doubt of another machine's write gives way to that write's record when it comes (${keyless ? 'keyless' : 'keyed'})`, async () => {
    // B's append of its record waits until A has read B's write and recorded its reading.
    const gate = onceAt((request) => request.path.includes('appendText'));
    await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, b, a, { 'optionator.md': PAGE });
      await b.write('optionator.md', WRITTEN);
      gate.arm(async () => {
        tick();
        await reported(a);
      });
      await sync(b);
      assert.ok(gate.fired, "A read B's write before B's record");
      assert.equal(await a.read('optionator.md'), WRITTEN.replace('`help`', 'help'), 'A took the words in from the plain reading');
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await b.read('optionator.md'), WRITTEN);
      assert.equal(await a.read('optionator.md'), WRITTEN, "A gets B's formatting once B's record came");
    });
  });
}
