import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 728: machine A listed a page B had just made, between B's create and its first body, and
 * pulled it empty. B's record of the page (its source: code and tables) came while A's run was under way, and A's
 * record of the empty page was published after it. A's next run read the body B wrote and took it in as the plain
 * reading (kbsync's placeholders where the code and tables stood), not from B's record: the file held
 * placeholders for good, and A's next edit of it was held PLACEHOLDERS.
 */
const PAGE = '# dateformat\n\nFormat a date.\n\n```js\nformat(new Date(), "yyyy")\n```\n\n| Mask | Meaning |\n| --- | --- |\n| yyyy | year |\n';

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a new page read empty before its writer's record came ends as its writer wrote it (${team})`, async () => {
    // A's append of its records waits for B's run, which writes the body and publishes B's record first.
    const gate = onceAt((request) => request.path.includes('appendText'));
    await withGatedPair(keyless, gate.hooks, async (em, b, a) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
      await b.write('dateformat.md', PAGE);
      const killed = await b.sync([], { KBSYNC_CRASH_AT: 'after-create' });
      assert.notEqual(killed.code, 0, 'B is killed between its create and its first body');
      gate.arm(() => reported(b));
      const first = await sync(a);
      assert.deepEqual(first.results.map((r) => (r.ok ? r.result : r.code)), ['pulled'], 'A pulls the page as made, empty');
      assert.ok(gate.fired, "B's body and record came during A's run");
      assert.equal(await a.read('dateformat.md'), '', 'read between the create and the first body');
      for (const f of [a, b, a, b, a]) await sync(f);
      assert.equal(await b.read('dateformat.md'), PAGE, 'B keeps its file');
      assert.equal(await a.read('dateformat.md'), PAGE, "A's file is the page as B wrote it, code and table included");
      await a.write('dateformat.md', PAGE.replace('Format a date.', 'Format a date, edited on A.'));
      const pushed = await sync(a);
      assert.deepEqual(pushed.results.map((r) => (r.ok ? r.result : r.code)), ['pushed'], "A's edit is published, not held");
    });
  });
}
