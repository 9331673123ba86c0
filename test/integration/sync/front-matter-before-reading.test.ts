import { test } from 'node:test';
import assert from 'node:assert/strict';
import { minuteByMinute, publishedOnBoth, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 718 (keyless; seed 8498 too): A added front matter to its file and published it (kept in the shared
 * state alone), then took a colleague's words in from the plain reading, keeping that front matter: its record
 * says so (`hc`). B, still at the page as first synced, took that version's body and dropped its front matter, as
 * if it were the one a reading of B's own write had kept without seeing B's (model seed 4011): but B wrote none of
 * those blocks, and the front matter was A's own. The two files differed for good.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

for (const keyless of [false, true]) {
  test(`front matter published before a plain reading of a colleague's words reaches the machine that took neither (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
      const headed = `---\ntags: [alpha]\n---\n${TEXT}`;
      await a.write('guide.md', headed);
      const recorded = await sync(a);
      assert.deepEqual(recorded.results.map((r) => (r.ok ? r.result : r.code)), ['recorded'], 'the front matter is kept in the shared state alone');
      em.admin.editDocument(a.remoteDoc('Guide').dentryUuid, TEXT.replace('Second paragraph.', 'Second paragraph, from the web.'));
      const pulled = await sync(a);
      assert.deepEqual(pulled.results.map((r) => (r.ok ? r.result : r.code)), ['pulled'], "A takes the colleague's words in beside its front matter");
      const expected = headed.replace('Second paragraph.', 'Second paragraph, from the web.');
      assert.equal(await a.read('guide.md'), expected);
      for (const f of [b, a, b]) await sync(f);
      assert.equal(await b.read('guide.md'), expected, "B gets the colleague's words and A's front matter");
      assert.equal(await a.read('guide.md'), expected, 'A keeps both');
    });
  });
}
