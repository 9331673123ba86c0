import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLACEHOLDER_PREFIX } from '../../../src/markdown/index.js';
import { minuteByMinute, publishedOnBoth, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 6002 (keyless): a colleague added a code block to a page and wrote words in it, and B added front
 * matter to its file. B took the colleague's edit in from the plain reading (a placeholder where the code stands,
 * the words) with its front matter, and published that version. A dropped B's version for its placeholder, as one
 * standing where A's own file had the code (soak seed 13), though A's base had no code there and its own plain
 * reading writes the very same placeholder: A took the plain reading in, and B's front matter never reached it.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nLast paragraph.\n';
const EDITED = '# Guide\n\nFirst paragraph, from the web.\n\n```sh\nnpm ci\n```\n\nLast paragraph.\n';

for (const keyless of [false, true]) {
  test(`front matter added beside a colleague's new code block reaches the other machine (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
      em.admin.editDocument(a.remoteDoc('Guide').dentryUuid, EDITED);
      await b.write('guide.md', `---\ntags: [alpha]\n---\n${TEXT}`);
      tick();
      const merged = await sync(b);
      assert.deepEqual(merged.results.map((r) => (r.ok ? r.result : r.code)), ['merged'], "B takes the colleague's edit in beside its front matter");
      const expected = await b.read('guide.md');
      assert.match(expected, /^---\ntags: \[alpha\]\n---\n# Guide\n\nFirst paragraph, from the web\./);
      assert.match(expected, new RegExp(PLACEHOLDER_PREFIX), 'the code block, which reads cannot show, as a placeholder');
      for (const f of [a, b, a]) await sync(f);
      assert.equal(await a.read('guide.md'), expected, "A takes B's version, front matter and all");
      assert.equal(await b.read('guide.md'), expected);
    });
  });
}
