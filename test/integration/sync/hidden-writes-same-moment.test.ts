import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localFiles, remotelyPresent } from '../../helpers/reliability.js';
import { minuteByMinute, publishedOnBoth, reported, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 11006 (issue 44): two machines each changed one link's address in a page (a change reads cannot show)
 * and wrote it in the same moment, both from the version they had synced: the later write replaced the earlier one,
 * and both records, agreed in the same second, say the same blocks. Whichever record the shared state holds as the
 * page's latest, the other machine took it for what the page holds, and that version's absence of its own address
 * for its removal: it dropped its own edit from its file unsaid, and the page and the files differed for good.
 *
 * Both versions say what they were made from (DocRecord `b`), the very version both machines had: the two are
 * branches of it, and whichever machine syncs next merges them against it, keeping both addresses.
 */
const PAGE = '# Guide\n\nRead [the manual](https://example.com/manual) first.\n\nThanks to [the author](https://example.com/author).\n';
const ON_A = 'https://example.com/manual-a';
const ON_B = 'https://example.com/author-b';

for (const keyless of [true, false]) {
  test(`two machines' writes of one page in one moment, each a link's address: both addresses everywhere (${keyless ? 'keyless' : 'keyed'} team)`, async () => {
    let guideKey: string | undefined;
    const writeOfGuide = (request: { readonly path: string }): boolean => guideKey !== undefined && request.path.includes(`${guideKey}/overwriteContent`);
    await withArmedPair(keyless, writeOfGuide, async ({ em, a, b, gate }) => {
      await publishedOnBoth(em, a, b, { 'guide.md': PAGE });
      guideKey = a.remoteDoc('Guide').dentryUuid;
      await a.write('guide.md', PAGE.replace('https://example.com/manual', ON_A));
      await b.write('guide.md', PAGE.replace('https://example.com/author', ON_B));
      // B read the page before A's write; its own write, held until A's run is over, lands after A's in the same minute.
      gate.arm(() => reported(a));
      await reported(b);
      assert.ok(gate.fired, "A's run came between B's read of the page and B's write of it");
      assert.ok(remotelyPresent(a, ON_B) && !remotelyPresent(a, ON_A), "B's write replaced A's");

      const { sync } = minuteByMinute(em, 3);
      for (const f of [a, b, a, b]) await sync(f);
      for (const address of [ON_A, ON_B]) {
        assert.ok(remotelyPresent(a, address), `the page holds ${address}`);
        assert.match(await a.read('guide.md'), new RegExp(address), `A's file holds ${address}`);
        assert.match(await b.read('guide.md'), new RegExp(address), `B's file holds ${address}`);
      }
      for (const f of [a, b]) assert.deepEqual([...(await localFiles(f.root)).keys()].filter((path) => path.includes('.conflict-')), [], 'no conflict copy');
    });
  });
}
