import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import type { GateHooks } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, saidIn, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 742 (keyed, issue 44): B rewrapped a line of a page holding two code blocks that read alike, and
 * wrote it; such a write is read back at once, for the ids of those blocks. A colleague saved a word in another
 * paragraph between the write and that read. B took the read for a failed write (REMOTE_CHANGED_DURING_WRITE) and
 * kept its record of the page as before its write, so its next run found its own rewrap unpublished beside the
 * colleague's edit of a page with code, and held it (FLATTEN) for good, with nothing to settle: the document held the
 * rewrap. A took the colleague's word in from the plain reading, without the rewrap B never recorded, and the two
 * files differed for good. A write the service answered stands as any other does (its record, checked by the next
 * read): the colleague's save is that read's news, a later edit taken in as one.
 */
const PAGE =
  '# Parser\n\nIt parses code.\n\n```sh\nnpm install acorn\n```\n\nThe `extend` method takes any number of plugin values, and returns a\nnew class.\n\n```sh\nnpm test\n```\n\nLast words here.\n';
const REWRAPPED = PAGE.replace('values, and returns a\nnew', 'values, and\nreturns a new');

for (const keyless of [false, true]) {
  test(`a colleague's save between our write and its read-back is a later edit, not a failed write${keyless ? ' (keyless team)' : ''}`, async () => {
    let page = '';
    let step: 'idle' | 'armed' | 'written' | 'saved' = 'idle';
    let colleagueSaves = (): void => undefined;
    const gate: GateHooks = {
      before: (request) => {
        if (page === '' || !request.path.includes(page)) return;
        if (step === 'armed' && request.path.includes('/overwriteContent')) step = 'written';
        else if (step === 'written' && request.path.includes('/blocks')) {
          step = 'saved';
          colleagueSaves();
        }
      },
    };
    await withGatedPair(keyless, gate, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'parser.md': PAGE });
      page = a.remoteDoc('Parser').dentryUuid;
      colleagueSaves = () => em.admin.editDocument(page, (a.remoteDoc('Parser').markdown ?? '').replace('Last words', 'Last colleague words'));
      await b.write('parser.md', REWRAPPED);
      step = 'armed';
      const wrote = await sync(b);
      assert.equal(step, 'saved', "the colleague saved between B's write and its read-back");
      assert.deepEqual(saidIn(wrote), [], "B's write stands: nothing to say");
      for (const f of [a, b, a, b]) assert.deepEqual(saidIn(await sync(f)), [], 'nothing held, nothing to say');
      const expected = REWRAPPED.replace('Last words', 'Last colleague words');
      assert.equal(await b.read('parser.md'), expected, "B has its rewrap and the colleague's word");
      assert.equal(await a.read('parser.md'), expected, "A has both too");
      assert.deepEqual((await readdir(b.root)).filter((name) => name.includes('.conflict-')), []);
    });
  });
}
