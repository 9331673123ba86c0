import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502: on a prose page, machine B listed a colleague's edit and read the page only after A had written
 * its own edit over it (new words in inline code). B took that write from the plain reading, in doubt of its
 * formatting, before A's record came; then A's record of those very blocks, exact. B's next edit of the page was
 * held FLATTEN for good: the plain reading's doubt outlived the record that settled it, as a doubt of content.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n';

test("a write read plainly before its record is known once the record comes: the page's next edit is published", async () => {
  // B's read of the page waits for A's write (A is killed before its record): B listed the page before it.
  const gate = onceAt((request) => request.path.includes('blocks'));
  await withGatedPair(false, gate.hooks, async (em, a, b) => {
    const { sync, tick } = minuteByMinute(em);
    const page = () => a.remoteDoc('Guide');
    const colleague = (edit: (markdown: string) => string) => em.admin.editDocument(page().dentryUuid, edit(page().markdown ?? ''));
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
    colleague((md) => md.replace('First paragraph.', 'First paragraph, from the web.'));
    for (const f of [a, b]) await sync(f);
    colleague((md) => md.replace('Third paragraph.', 'Third paragraph, from the web.'));
    await a.write('guide.md', (await a.read('guide.md')).replace('Second paragraph.', 'Second `code words` paragraph.'));
    gate.arm(async () => {
      tick();
      const killed = await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
      assert.notEqual(killed.code, 0, 'A is killed between its write and its record');
    });
    await sync(b);
    assert.ok(gate.fired, "B read the page after A's write");
    for (const f of [a, b, a, b]) await sync(f);
    assert.equal(await b.read('guide.md'), await a.read('guide.md'), "B has A's version, formatting and all");

    colleague((md) => `${md}\nRun \`npm ci\` first.\n`);
    const pulled = await sync(b);
    assert.deepEqual(
      pulled.results.map((r) => (r.ok ? r.detail?.split(':')[0] : r.code)),
      ['FORMATTING_UNSEEN'],
      "the colleague's new words are named once, as any colleague's words on a page a read shows whole",
    );
    await b.write('guide.md', (await b.read('guide.md')).replace('Third paragraph, from the web.', 'Third paragraph, edited on B.'));
    const pushed = await sync(b);
    assert.deepEqual(
      pushed.results.map((r) => (r.ok ? [r.result, r.reason] : [r.code])),
      [['pushed', undefined]],
      "B's edit of the prose page is published, not held",
    );
    await sync(a);
    const expected = '# Guide\n\nFirst paragraph, from the web.\n\nSecond `code words` paragraph.\n\nThird paragraph, edited on B.\n\nRun npm ci first.\n';
    assert.equal(await b.read('guide.md'), expected);
    assert.equal(await a.read('guide.md'), expected);
    assert.match(page().markdown ?? '', /Second `code words` paragraph[\s\S]*edited on B/);
  });
});
