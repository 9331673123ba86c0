import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GateHooks } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 734 (keyless): B made a new prose page, and its queue sent the first body in the minute after the
 * one it announced the write in. A listed and read the page before B's record of that body came, over a minute after
 * the body: its time past the announcement's minute was taken for someone's edit where reads cannot see (a writer
 * killed after its write looks the same), and A pulled the page with a hidden edit standing. B's record then came, of
 * the very blocks and minute A had read, which explains that time; but neither A's file nor the listing changed, so no
 * run of A's looked at the page again: the hidden edit stood for good, and A's next edit of the page was held.
 */
const PAGE = '# Zod\n\nZod is a TypeScript-first validation library. Define a *schema* and `parse` some data with it.\n\n## Features\n\n- Zero external dependencies\n- Works in Node.js and all modern browsers\n';

const heldOn = async (f: SyncFixture): Promise<string> => (await f.cli(['resolve'])).stdout;

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a new page's first body, landed a minute late and read before its record: once the record comes, nothing is held (${team})`, async () => {
    let tick: (() => void) | undefined;
    let window: (() => Promise<unknown>) | undefined;
    let between: SyncReport | undefined;
    let stage = 0;
    // B's first body waits for the next minute; its record of it, for A's run a minute and more after that.
    const hooks: GateHooks = {
      before: async (request) => {
        if (stage === 0 && request.path.includes('overwrite')) {
          stage = 1;
          tick?.();
        } else if (stage === 1 && request.path.includes('appendText') && window) {
          stage = 2;
          tick?.();
          tick?.();
          between = (await window()) as SyncReport;
        }
      },
    };
    await withGatedPair(keyless, hooks, async (em, a, b) => {
      const clock = minuteByMinute(em);
      tick = clock.tick;
      await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
      await b.write('zod.md', PAGE);
      window = () => reported(a);
      await clock.sync(b);
      assert.equal(stage, 2, "A read B's first body, a minute late, before B's record of it came");
      assert.ok(between);
      assert.equal(await a.read('zod.md'), PAGE, 'A has the page as B wrote it');
      const said: string[] = [];
      for (const [name, f] of [['A', a], ['B', b], ['A', a], ['B', b]] as const) said.push(...saidIn(await clock.sync(f)).map((code) => `${name} ${code}`));
      assert.deepEqual(said, [], 'nothing is said once the record comes');
      assert.doesNotMatch(await heldOn(a), /HIDDEN_EDIT/, 'A holds no hidden edit');
      await a.write('zod.md', PAGE.replace('all modern browsers', 'all modern browsers, edited on A'));
      const pushed = await clock.sync(a);
      assert.deepEqual(pushed.results.filter((r) => r.path === 'zod.md').map((r) => (r.ok ? r.result : r.code)), ['pushed'], `A's next edit is published, not held: ${JSON.stringify(pushed.results)}`);
    });
  });
}
