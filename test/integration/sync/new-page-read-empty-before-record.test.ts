import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { onceAt, type GateHooks } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, PAIR_EPOCH, publishedOnBoth, reported, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 728: machine A listed a page B had just made, between B's create and its first body, and pulled
 * it empty. B's record of the page (its source: code and tables) came while A's run was under way; A's record of the
 * empty page, published after it, stood over it in the shared state, and, agreed seconds after it, was taken for the
 * later version. A's next run read the body B wrote and took it in as the plain reading (kbsync's placeholders where
 * the code and tables stood), not from B's record: the file held placeholders for good, and A's next edit of it was
 * held PLACEHOLDERS.
 */
const PAGE = '# dateformat\n\nFormat a date.\n\n```js\nformat(new Date(), "yyyy")\n```\n\n| Mask | Meaning |\n| --- | --- |\n| yyyy | year |\n';

/** B makes the page and is killed before its first body; `readEmpty` runs A's sync, B's run coming during it. */
async function pageReadEmpty(
  keyless: boolean,
  hooks: GateHooks,
  readEmpty: (pair: { em: RunningEmulator; a: SyncFixture; b: SyncFixture; sync: (f: SyncFixture) => Promise<SyncReport> }) => Promise<void>,
): Promise<void> {
  await withGatedPair(keyless, hooks, async (em, b, a) => {
    const { sync } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
    await b.write('dateformat.md', PAGE);
    const killed = await b.sync([], { KBSYNC_CRASH_AT: 'after-create' });
    assert.notEqual(killed.code, 0, 'B is killed between its create and its first body');
    await readEmpty({ em, a, b, sync });
    assert.equal(await a.read('dateformat.md'), '', 'A read the page between its create and its first body');
    for (const f of [a, b, a, b, a]) await sync(f);
    assert.equal(await b.read('dateformat.md'), PAGE, 'B keeps its file');
    assert.equal(await a.read('dateformat.md'), PAGE, "A's file is the page as B wrote it, code and table included");
    await a.write('dateformat.md', PAGE.replace('Format a date.', 'Format a date, edited on A.'));
    const pushed = await sync(a);
    assert.deepEqual(pushed.results.map((r) => (r.ok ? r.result : r.code)), ['pushed'], "A's edit is published, not held");
  });
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a new page read empty, its reader's record published after its writer's: it ends as its writer wrote it (${team})`, async () => {
    // A's append of its records waits for B's run, which writes the body and publishes B's record first.
    const gate = onceAt((request) => request.path.includes('appendText'));
    await pageReadEmpty(keyless, gate.hooks, async ({ a, b, sync }) => {
      gate.arm(() => reported(b));
      await sync(a);
      assert.ok(gate.fired, "B's body and record came during A's run");
    });
  });

  test(`a new page read empty, agreed seconds after its writer's record: it ends as its writer wrote it (${team})`, async () => {
    // Once A has read the page empty, B's run goes on (body, record); A's next call waits for it, and the service's
    // clock moves five seconds on, so A agrees on its reading clearly after B's record (as in the soak).
    let page: string | undefined;
    let bRun: (() => Promise<unknown>) | undefined;
    let bDone: Promise<unknown> | undefined;
    const hooks: GateHooks = {
      after: (request) => {
        if (bRun !== undefined && page !== undefined && request.path.includes(`${page}/blocks`)) bDone = bRun();
      },
      before: async () => {
        if (bDone === undefined) return;
        const done = bDone;
        bDone = undefined;
        bRun = undefined;
        await done;
      },
    };
    await pageReadEmpty(keyless, hooks, async ({ em, a, b, sync }) => {
      page = b.remoteDoc('dateformat').dentryUuid;
      let ran = false;
      bRun = async () => {
        await reported(b);
        em.admin.setClockOffset(em.admin.now() - PAIR_EPOCH + 5_000);
        ran = true;
      };
      await sync(a);
      assert.ok(ran, "B's body and record came between A's read and its agreement");
    });
  });
}
