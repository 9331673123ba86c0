import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 601 (keyless): a colleague wrote words in a prose page while A added front matter to its file. A took
 * the words in with its front matter; B, which had read the state before A's record, took them in plainly
 * (keeping what it had: no front matter), and its record, published after A's, stood over it. Both were in doubt
 * of the words' formatting, but only A's knew the front matter: it never reached B.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';

for (const keyless of [false, true]) {
  test(`front matter added while a colleague wrote words reaches the machine that read those words plainly before its record (${keyless ? 'keyless' : 'keyed'})`, async () => {
    let pageKey = '';
    // B's read of the page waits for A's whole run: B read the state before A's record, and publishes after it.
    const gate = onceAt((request) => request.path.includes(`${pageKey}/blocks`));
    await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
      const page = a.remoteDoc('Guide');
      pageKey = page.dentryUuid;
      em.admin.editDocument(page.dentryUuid, (page.markdown ?? '').replace('Second paragraph.', 'Second paragraph, from the web.'));
      await a.write('guide.md', `---\ntags: [alpha]\n---\n${TEXT}`);
      gate.arm(() => reported(a));
      await sync(b);
      assert.ok(gate.fired);
      for (const f of [a, b, a, b]) await sync(f);
      const expected = `---\ntags: [alpha]\n---\n${TEXT.replace('Second paragraph.', 'Second paragraph, from the web.')}`;
      assert.equal(await a.read('guide.md'), expected);
      assert.equal(await b.read('guide.md'), expected, "B gets A's front matter");
    });
  });
}
