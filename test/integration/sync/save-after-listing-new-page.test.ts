import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saidIn, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 715: B took in a page another machine had made, from that machine's record, and the read showed a
 * colleague's new paragraph saved after B's listing, minutes after the page's last write (a run slow enough, or a
 * clone long enough, that the listing is minutes old by the read). B recorded the listing's minute with the blocks
 * read, so its next listing, showing the colleague's minute over those very blocks, said HIDDEN_EDIT of a page
 * whose every change a read had shown, and held B's edits of it for good.
 *
 * A read unlike the writer's record shows a change since that record: the listing may predate it, so its time is
 * asked once more (one call, in this case alone).
 */
for (const keyless of [false, true]) {
  test(`a page taken in from its writer's record, read after a colleague's visible save that followed the listing${keyless ? ' (keyless team)' : ''}: no hidden edit`, async () => {
    let pageKey: string | undefined;
    await withArmedPair(keyless, (request) => pageKey !== undefined && request.path.includes(`${pageKey}/blocks`), async ({ em, a, b, gate, sync, tick }) => {
      await a.write('guide.md', '# Guide\n\nWritten on A.\n\nA second paragraph.\n');
      await sync(a);
      pageKey = a.remoteDoc('Guide').dentryUuid;
      // B lists the page minutes after A wrote it; before B reads it, a colleague adds a paragraph, minutes on.
      gate.arm(async () => {
        for (let minute = 0; minute < 4; minute += 1) tick();
        const page = a.remoteDoc('Guide');
        em.admin.editDocument(page.dentryUuid, `${page.markdown ?? ''}\nA colleague's paragraph.\n`);
      });
      tick();
      tick();
      tick();
      await sync(b);
      assert.ok(gate.fired, "the colleague's save came between B's listing and its read");
      assert.match(await b.read('guide.md'), /A colleague's paragraph/, 'B took the save in');
      for (const f of [b, a, b]) assert.deepEqual(saidIn(await sync(f)), [], 'no hidden edit is said: every change was one a read shows');
      await b.write('guide.md', (await b.read('guide.md')).replace('Written on A.', 'Written on A, edited on B.'));
      const pushed = await sync(b);
      assert.deepEqual(pushed.results.map((r) => (r.ok ? r.result : r.code)), ['pushed'], "B's edit is published, not held");
      assert.match(a.remoteDoc('Guide').markdown ?? '', /edited on B[\s\S]*A colleague's paragraph/);
    });
  });
}
