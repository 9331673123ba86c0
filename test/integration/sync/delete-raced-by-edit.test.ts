import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitText } from '../../../src/sync/content/document-text.js';
import type { GateHooks, Passing } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, withBothGated, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 754 (keyed, issue 44): A's user deleted ref/mdast-util-gfm-table.md, and A's run deleted its
 * document; 5 ms before that delete, B's run wrote its user's edit of the file to the document, after A's last look
 * at it and at the team's state (the service has no conditional write, nor a conditional delete). B's record of that
 * write reached the state 30 ms after A's `gone`. B then found the document deleted, its file as last synced, and
 * moved it to kbsync's trash: the edit was in no file and no document. An edit beats a delete: B's file, whose version
 * was made from the very one A deleted, makes the page again, and A takes it in.
 */
const PAGE = '# Tables\n\nGFM tables for mdast.\n\nRows and cells.\n';
const EDITED = `${PAGE}\nEmber harbor, added on B.\n`;
const OTHER = '# Other\n\nA page both have.\n';

/**
 * Where B's record of its write lands against A's `gone`: `before` (B's whole run while A's delete waits), or `after`
 * (the soak's order: B's write lands while A's delete waits, and B's record comes once A's `gone` is in the state);
 * `unsaid`: as `before`, and B's next run, the minute after its write, lists the page gone and reads the state before
 * A's `gone` is in it (A publishes it as its run ends).
 */
type Order = 'before' | 'after' | 'unsaid';

/** Each order, as a test's title says it. */
const RACES: Readonly<Record<Order, string>> = {
  after: "its record after the delete's",
  before: "its record before the delete's",
  unsaid: "its record before the delete's, the page found deleted before the deleter's record came: the file waits, then",
};

const said = (report: SyncReport | undefined): string => JSON.stringify(report?.results);

/** A promise and the function that settles it. */
function signal(): { readonly done: Promise<void>; readonly give: () => void } {
  let give: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (give = resolve));
  return { done, give };
}

/** Tells the page's calls (its key set once it is known) from the appends to the team's state. */
function callsOf(): { key: string; readonly ofPage: (request: Passing) => boolean; readonly isStateAppend: (request: Passing) => boolean } {
  const calls = {
    key: '',
    ofPage: (request: Passing): boolean => calls.key !== '' && request.path.includes(`/documents/${calls.key}/`),
    isStateAppend: (request: Passing): boolean => request.path.includes('/appendText') && !calls.ofPage(request),
  };
  return calls;
}

/** Once both have run twice more, the page is back with B's edit: one document, every file, and both steady. */
async function comesBackOnBoth(sync: (f: SyncFixture) => Promise<SyncReport>, a: SyncFixture, b: SyncFixture): Promise<void> {
  for (const f of [a, b, a, b]) await sync(f);
  const docs = a.remoteDocs().filter((node) => node.title === 'Tables');
  assert.equal(docs.length, 1, `one document: ${JSON.stringify(a.remoteDocs().map((node) => node.title))}`);
  assert.equal(docs[0]?.markdown, splitText(EDITED).body, 'it holds the edit');
  for (const f of [a, b]) assert.equal(await f.read('ref/tables.md').catch(() => undefined), EDITED, 'every file holds the edit');
  for (const f of [a, b]) {
    const last = await sync(f);
    assert.deepEqual(last.pending, [], 'nothing waits for a person');
    assert.equal(last.callsByEndpoint['overwriteContent'] ?? 0, 0, `steady: ${said(last)}`);
  }
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  for (const order of ['after', 'before', 'unsaid'] as const satisfies readonly Order[]) {
    test(`an edit written to a page just before another machine's delete of it (${RACES[order]}): the page comes back with it on both (${team})`, async () => {
      let armed = false;
      const calls = callsOf();
      const { ofPage, isStateAppend } = calls;
      const aAtDelete = signal();
      const bWrote = signal();
      const aGone = signal();
      const aDeleted = signal();
      const bFound = signal();
      let bRun: Promise<SyncReport> | undefined;
      let deleted = false;
      // A: at its delete (after its last look at the page and the state), B's write is let go and waited for (its whole
      // run, for `before` and `unsaid`); A's `gone`, once answered, lets B's record go (`after`); for `unsaid`, A's
      // appends after its delete (its `gone`) are held until B's next run has found the page gone.
      const aGate: GateHooks = {
        before: async (request) => {
          if (!armed) return;
          if (request.method === 'DELETE' && !deleted) {
            deleted = true;
            aAtDelete.give();
            await (order === 'after' ? bWrote.done : bRun);
          } else if (order === 'unsaid' && deleted && isStateAppend(request)) await bFound.done;
        },
        after: (request, status) => {
          if (deleted && isStateAppend(request)) aGone.give();
          if (armed && request.method === 'DELETE' && status < 300) aDeleted.give();
        },
      };
      // B: its write of the page held until A's delete is about to go; for `after`, its record held until A's `gone`.
      let written = false;
      const bGate: GateHooks = {
        before: async (request) => {
          if (!armed) return;
          if (ofPage(request) && request.method === 'POST') await aAtDelete.done;
          else if (order === 'after' && written && isStateAppend(request)) await aGone.done;
        },
        after: (request, status) => {
          if (armed && ofPage(request) && request.method === 'POST' && status < 300) {
            written = true;
            bWrote.give();
          }
        },
      };
      await withBothGated(keyless, [aGate, bGate], async (em, a, b) => {
        await publishedOnBoth(em, a, b, { 'ref/tables.md': PAGE, 'other.md': OTHER });
        calls.key = a.remoteDoc('Tables').dentryUuid;
        const { sync } = minuteByMinute(em, 3);
        await a.remove('ref/tables.md');
        await b.write('ref/tables.md', EDITED);
        armed = true;
        bRun = sync(b);
        const deletes = sync(a);
        const between = await bRun;
        // `unsaid`: B's next run, once A's delete is answered: the page listed gone, A's `gone` not yet in the state.
        const early = order === 'unsaid' ? await aDeleted.done.then(() => sync(b)).finally(() => bFound.give()) : undefined;
        const deleting = await deletes;
        armed = false;
        assert.ok(deleted && written, `the race was run: ${said(deleting)} ${said(between)}`);
        assert.ok(
          deleting.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'pushed'),
          `A deleted the document: ${said(deleting)}`,
        );
        assert.ok(
          between.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'pushed'),
          `B wrote its edit to it first: ${said(between)}`,
        );
        if (early) {
          assert.equal(await b.read('ref/tables.md').catch(() => undefined), EDITED, `B's file waits, its edit kept: ${said(early)}`);
          assert.ok(
            early.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'unchanged' && /has not come yet/.test(r.detail ?? '')),
            `B says the file waits for the deleter's record: ${said(early)}`,
          );
        }

        // A runs first, the state pairing the path with the deleted document again by B's record (`after`): it makes nothing of it.
        const waited = await sync(a);
        assert.equal(await a.exists('ref/tables.md'), false, `A has no file of a deleted page yet: ${said(waited)}`);
        const found = await sync(b);
        assert.equal(await b.read('ref/tables.md').catch(() => undefined), EDITED, `B's file keeps its edit: ${said(found)}`);
        await comesBackOnBoth(sync, a, b);
      });
    });
  }

  test(`a page a colleague deleted in the web editor a minute after this machine wrote it: the file waits that minute, then goes to the trash (${team})`, async () => {
    await withBothGated(keyless, [undefined, undefined], async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'ref/tables.md': PAGE, 'other.md': OTHER });
      const { sync } = minuteByMinute(em, 3);
      await b.write('ref/tables.md', EDITED);
      const wrote = await sync(b);
      assert.ok(wrote.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'pushed'), `B wrote its edit: ${said(wrote)}`);
      em.admin.deleteNode(a.remoteDoc('Tables').dentryUuid);
      // A minute on, no machine's record of the delete (none comes from the web editor): the file waits, said so.
      const waited = await sync(b);
      assert.equal(await b.read('ref/tables.md').catch(() => undefined), EDITED, `B's file waits: ${said(waited)}`);
      assert.ok(
        waited.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'unchanged' && /has not come yet/.test(r.detail ?? '')),
        `the wait is said: ${said(waited)}`,
      );
      assert.deepEqual(waited.pending, [], 'nothing waits for a person');
      // Two minutes after the write's minute: no record will come, and the file goes.
      const trashed = await sync(b);
      assert.ok(trashed.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.action === 'trash-local' && r.result === 'pulled'), `B's file went to the trash: ${said(trashed)}`);
      for (const f of [a, b]) await sync(f);
      assert.deepEqual(
        a.remoteDocs().filter((node) => node.title === 'Tables'),
        [],
        'no document',
      );
      for (const f of [a, b] as SyncFixture[]) assert.equal(await f.exists('ref/tables.md'), false, 'no file');
    });
  });

  for (const aEdits of [false, true]) {
    test(`a delete made after the deleting machine took in the other's last edit${aEdits ? ' and wrote its own' : ''} goes from both (${team})`, async () => {
      await withBothGated(keyless, [undefined, undefined], async (em, a, b) => {
        await publishedOnBoth(em, a, b, { 'ref/tables.md': PAGE, 'other.md': OTHER });
        const { sync } = minuteByMinute(em, 3);
        await b.write('ref/tables.md', EDITED);
        await sync(b);
        await sync(a);
        assert.equal(await a.read('ref/tables.md'), EDITED, 'A took the edit in');
        // A's own later version, which B's is older than (B has not taken it in when the delete comes): no edit of B's beats it.
        if (aEdits) {
          await a.write('ref/tables.md', `${EDITED}\nAnd a line from A.\n`);
          await sync(a);
        }
        await a.remove('ref/tables.md');
        const deleting = await sync(a);
        assert.ok(deleting.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.result === 'pushed'), `A deleted the document: ${said(deleting)}`);
        const trashed = await sync(b);
        assert.ok(trashed.results.some((r) => r.ok && r.path === 'ref/tables.md' && r.action === 'trash-local'), `B's file went to the trash: ${said(trashed)}`);
        for (const f of [a, b]) await sync(f);
        assert.deepEqual(
          a.remoteDocs().filter((node) => node.title === 'Tables'),
          [],
          'no document',
        );
        for (const f of [a, b] as SyncFixture[]) assert.equal(await f.exists('ref/tables.md'), false, 'no file');
      });
    });
  }
}
