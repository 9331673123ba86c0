import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { onceAt } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 712 (keyless, issue 44): machine A pulled machine B's append to a page with code; A's listing showed
 * the document at B's minute, a colleague's code line was saved in the next minute before A's read, and the read
 * showed B's version (a code line reads as `unknown`, the same). A asked the document's time again, found a later
 * minute, and recorded the time as unknown: so the colleague's minute, at the next listing, showed nothing
 * unexplained, and A's next local edit overwrote the code line. The read shows nothing beyond the version the
 * listed minute stands for (B's exact record): the later minute is an edit no read shows, held as one. A save
 * the read does show (words and code in one save) is a web edit, held as any web edit of a page with code.
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';

type Saved = { readonly a: SyncFixture; readonly b: SyncFixture; readonly em: RunningEmulator; readonly pulled: SyncReport; readonly sync: (f: SyncFixture) => Promise<SyncReport> };

/**
 * TEXT on both; A (the open machine) appends a paragraph and publishes its record; B (the gated one) syncs in the
 * same minute, and its read of the document waits while the clock moves a minute on and the colleague saves `edit`.
 */
async function savedAfterListing(edit: (markdown: string) => string, fn: (saved: Saved) => Promise<void>): Promise<void> {
  let docKey = '';
  const gate = onceAt((request) => request.method === 'GET' && request.path.includes(`/documents/${docKey}/blocks`));
  await withGatedPair(true, gate.hooks, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
    docKey = a.remoteDoc('Runbook').dentryUuid;
    const { sync, tick } = minuteByMinute(em);
    await a.write('runbook.md', `${TEXT}\nAppended on A.\n`);
    await sync(a);
    gate.arm(async () => {
      tick();
      em.admin.editDocument(docKey, edit(a.remoteDoc('Runbook').markdown ?? ''));
    });
    const pulled = await reported(b);
    assert.ok(gate.fired, "the colleague's save came between B's listing and its read");
    await fn({ a, b, em, pulled, sync });
  });
}

test("a colleague's code line saved between a run's listing and its read of another machine's version: the next local edit is held, the line stands", async () => {
  await savedAfterListing(
    (markdown) => markdown.replace('restart --all', 'restart --all --graceful'),
    async ({ b, a, pulled, sync }) => {
      assert.equal(await b.read('runbook.md'), `${TEXT}\nAppended on A.\n`, "B takes A's version");
      assert.deepEqual(saidIn(pulled), [], 'nothing said yet: the read shows nothing of the save');
      await b.write('runbook.md', `${TEXT.replace('Before you start', 'Before anything')}\nAppended on A.\n`);
      // The save's minute is the last but one: a writer's record of it may still come, and the edit waits with it.
      const waited = await sync(b);
      assert.deepEqual(saidIn(waited), ['JUST_EDITED'], 'the edit waits, and says so');
      const next = await sync(b);
      assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code line stands");
      assert.deepEqual(saidIn(next), ['HIDDEN_EDIT'], 'the edit held, and why');
    },
  );
});

test("…a save the read shows (words and code at once): the words are pulled, the next local edit is held (FLATTEN), the line stands", async () => {
  await savedAfterListing(
    (markdown) => markdown.replace('restart --all', 'restart --all --graceful').replace('read this', 'read this twice'),
    async ({ b, a, sync }) => {
      assert.equal(await b.read('runbook.md'), `${TEXT.replace('read this', 'read this twice')}\nAppended on A.\n`, "B takes A's version and the colleague's words");
      await b.write('runbook.md', `${TEXT.replace('read this', 'read this twice').replace('Before you start', 'Before anything')}\nAppended on A.\n`);
      const next = await sync(b);
      assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code line stands");
      assert.deepEqual(saidIn(next), ['FLATTEN'], 'the edit held, and why');
    },
  );
});
