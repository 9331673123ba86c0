import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, readBeforeRecord, withGatedPair, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 736 (issue 44, keyless): A rewrapped a list item, its second line left lazy (not indented), and
 * wrote it; B's run had read the shared state before A's record came, read the write, and took the changed item in
 * from the plain reading, laid out as its Markdown writer lays it (indented). B's record of that text, exact, of A's
 * very blocks, and agreed later, stood for a later version than A's own: A's next edit, elsewhere in the page, was
 * held as a conflict "at line 49, 49" whose only difference was that indentation, and `kbsync resolve` listed no
 * clash to settle. Another writer's layout of our own write is no news (sync/views/assess.ts respelling).
 */
const PAGE = '# Differences\n\n1. _Object keys_ are sorted instead of using the\n   insertion order (configurable).\n1. _BigInt_ values are stringified.\n\nSecond paragraph.\n\nThird paragraph.\n';

for (const keyless of [false, true]) {
  test(`another machine's layout of our write holds no later edit of ours (${keyless ? 'keyless' : 'keyed'})`, async () => {
    let page = '';
    const gate = onceAt((request) => page !== '' && request.path.includes(`/documents/${page}/blocks`));
    await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'diff.md': PAGE });
      page = a.remoteDoc('Differences').dentryUuid;
      // A colleague's deletion, taken in on both machines: each keeps its own front matter (`hc`), as in the soak.
      em.admin.editDocument(page, (a.remoteDoc('Differences').markdown ?? '').replace('\n\nThird paragraph.', ''));
      for (const f of [a, b]) await sync(f);
      const lazy = (await a.read('diff.md')).replace('using the\n   insertion', 'using\nthe insertion');
      // A's write lands, and A is killed before its record; B reads the state before it comes, and the page after.
      await readBeforeRecord({ a, b, gate, sync, tick }, 'diff.md', lazy);
      assert.equal(await b.read('diff.md'), lazy.replace('using\nthe insertion', 'using\n   the insertion'), 'B took the item in with its own layout');
      const edited = lazy.replace('BigInt_ values', 'BigInt_ values (u65z)');
      await a.write('diff.md', edited);
      for (const f of [a, b, a, b]) await sync(f);
      assert.deepEqual((await readdir(a.root)).filter((name) => name.includes('.conflict-')), [], 'no conflict on A');
      assert.equal(await a.read('diff.md'), edited, "A's edit stays in A's file");
      assert.ok((await b.read('diff.md')).includes('(u65z)'), "B has A's edit");
      assert.ok((a.remoteDoc('Differences').markdown ?? '').includes('(u65z)'), "the document has A's edit");
    });
  });
}

/**
 * The rule's bound: only a version made from the very one ours was made from, without knowing ours (a reading of our
 * write), is no news for its layout. A user's layout edit, made on a version both machines know, is a later version:
 * the document carries it as they wrote it, and the other machine takes it in so. (The rule's first cut took any
 * version of the record's blocks saying the same Markdown for a respelling: the machine that followed a forced move
 * kept its own layout of the page, a blank line fewer than the mover's file; move-over-placeholders.test.ts.)
 */
for (const keyless of [false, true]) {
  test(`a layout edit of a user's file reaches the document and the other machine as written (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'diff.md': PAGE });
      const relaid = PAGE.replace('using the\n   insertion', 'using the\ninsertion').replace('\n\nThird', '\n\n\nThird');
      await a.write('diff.md', relaid);
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(a.remoteDoc('Differences').markdown, relaid, 'the document holds the file as the user laid it out');
      assert.equal(await a.read('diff.md'), relaid);
      assert.equal(await b.read('diff.md'), relaid, "B takes A's layout");
    });
  });
}
