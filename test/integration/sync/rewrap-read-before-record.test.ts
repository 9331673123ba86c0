import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, readBeforeRecord, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 703: A rewrapped a line of a prose page and published it, write and record, while B's run was
 * under way: B had read the shared state before A's record came, and read the page after A's write (here A's
 * record comes late from a run killed before it, as B reads). B took the
 * write in from the plain reading but kept its own line breaks, and recorded that text as the exact source of
 * A's blocks. Its record, later than A's, stood over it: A's next run took A's own rewrap out of A's file, and
 * both files ended unlike the document, with nothing said.
 */
const TEXT = '# Guide\n\nFor more on why they’re nice, see\n[“Rust’s Two Kinds of ‘Assert’ Make for Better Code”][rust-two-kinds]\n\nSecond paragraph.\n';

for (const keyless of [false, true]) {
  test(`a rewrap read before its record stays in both files${keyless ? ' (keyless team)' : ''}`, async () => {
    let page = '';
    const gate = onceAt((request) => page !== '' && request.path.includes(`/documents/${page}/blocks`));
    await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
      page = a.remoteDoc('Guide').dentryUuid;
      // A colleague's words, taken in from a plain reading on both machines: neither knows the other's front matter.
      em.admin.editDocument(page, (a.remoteDoc('Guide').markdown ?? '').replace('Second paragraph.', 'Second paragraph, from the web.'));
      await sync(a);
      // A's edit of it, published exactly: B follows A's record, and both keep their own front matter (`hc`).
      await a.write('guide.md', (await a.read('guide.md')).replace('from the web.', 'from the web, and from A.'));
      for (const f of [a, b]) await sync(f);
      const wrapped = (await a.read('guide.md')).replace('‘Assert’ Make', '‘Assert’\nMake');
      // A's write lands, and A is killed before its record; B's run lists the page's new time and reads the shared
      // state, and its read of the page waits for A's next run to publish that record.
      await readBeforeRecord({ a, b, gate, sync, tick }, 'guide.md', wrapped);
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await a.read('guide.md'), wrapped, "A's rewrap stays in A's file");
      assert.equal(await b.read('guide.md'), wrapped, "B has A's rewrap");
      assert.equal(a.remoteDoc('Guide').markdown, wrapped);
    });
  });
}
