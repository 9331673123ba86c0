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
 * (the soak's order: B's write lands while A's delete waits, and B's record comes once A's `gone` is in the state).
 */
type Order = 'before' | 'after';

const said = (report: SyncReport | undefined): string => JSON.stringify(report?.results);

/** A promise and the function that settles it. */
function signal(): { readonly done: Promise<void>; readonly give: () => void } {
  let give: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (give = resolve));
  return { done, give };
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  for (const order of ['after', 'before'] as const satisfies readonly Order[]) {
    test(`an edit written to a page just before another machine's delete of it (its record ${order} the delete's): the page comes back with it on both (${team})`, async () => {
      let armed = false;
      let pageKey = '';
      const ofPage = (request: Passing): boolean => pageKey !== '' && request.path.includes(`/documents/${pageKey}/`);
      const isStateAppend = (request: Passing): boolean => request.path.includes('/appendText') && !ofPage(request);
      const aAtDelete = signal();
      const bWrote = signal();
      const aGone = signal();
      let bRun: Promise<SyncReport> | undefined;
      let deleted = false;
      // A: at its delete (after its last look at the page and the state), B's write is let go and waited for (its whole
      // run, for `before`); A's `gone`, once answered, lets B's record go (`after`).
      const aGate: GateHooks = {
        before: async (request) => {
          if (!armed || request.method !== 'DELETE' || deleted) return;
          deleted = true;
          aAtDelete.give();
          await (order === 'before' ? bRun : bWrote.done);
        },
        after: (request) => {
          if (deleted && isStateAppend(request)) aGone.give();
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
        pageKey = a.remoteDoc('Tables').dentryUuid;
        const { sync } = minuteByMinute(em, 3);
        await a.remove('ref/tables.md');
        await b.write('ref/tables.md', EDITED);
        armed = true;
        bRun = sync(b);
        const deleting = await sync(a);
        const between = await bRun;
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

        // A runs first, the state pairing the path with the deleted document again by B's record (`after`): it makes nothing of it.
        const waited = await sync(a);
        assert.equal(await a.exists('ref/tables.md'), false, `A has no file of a deleted page yet: ${said(waited)}`);
        const found = await sync(b);
        assert.equal(await b.read('ref/tables.md').catch(() => undefined), EDITED, `B's file keeps its edit: ${said(found)}`);
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
      });
    });
  }

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
