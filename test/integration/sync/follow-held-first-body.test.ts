import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heldMoveMade, resultsFor, stripped } from '../../helpers/held-move.js';
import { saidIn, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 6018 (keyless), the move test/helpers/held-move.ts makes: A's first body of the moved page is held
 * (PLACEHOLDERS), so the new document stays empty with only A's record of its ids. B follows: that is the document a
 * move's maker has yet to fill (issue 44), and B keeps its file; but its maker's body comes only once A's person
 * deletes the placeholders, so the page is on B's file alone meanwhile. Kept quiet (a plain follow, "pulled"), no run
 * said why B's file holds a page its document does not.
 */

for (const keyless of [true, false]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a followed move whose maker's first body is held: the follower keeps its file and says why, then takes that body (${team})`, async () => {
    await withArmedPair(keyless, () => false, async (pair) => {
      const { a, b, sync } = pair;
      const { kept, key } = await heldMoveMade(pair);
      const followed = await sync(b);
      assert.deepEqual(resultsFor(followed, 'tasks.md'), [['held', 'BODY_COMING']], JSON.stringify(followed.results));
      assert.equal(await b.read('tasks.md'), kept, "B's file keeps the page: never the empty document pulled over it");

      // A's person does as the hold says: the placeholders go, and the page fills the new document.
      await a.write('tasks.md', stripped(await a.read('tasks.md')));
      const pushed = await sync(a);
      assert.deepEqual(resultsFor(pushed, 'tasks.md'), [['pushed', '']], JSON.stringify(pushed.results));
      const taken = await sync(b);
      assert.deepEqual(saidIn(taken), [], JSON.stringify(taken.results));
      assert.equal(await b.read('tasks.md'), await a.read('tasks.md'), 'B takes the body A sent');
      assert.equal(a.remoteDocs().find((node) => node.dentryUuid === key)?.markdown, stripped(kept));
    });
  });
}

test("…and while that maker's body stays held past its two minutes, the follower's own first push is held for the same placeholders: the page is never emptied", async () => {
  await withArmedPair(true, () => false, async (pair) => {
    const { a, b, sync, tick } = pair;
    const { kept, key } = await heldMoveMade(pair);
    assert.deepEqual(saidIn(await sync(b)), ['BODY_COMING']);
    tick();
    tick();
    const later = await sync(b);
    assert.deepEqual(resultsFor(later, 'tasks.md'), [['held', 'PLACEHOLDERS']], JSON.stringify(later.results));
    assert.equal(await b.read('tasks.md'), kept);
    assert.equal(a.remoteDocs().find((node) => node.dentryUuid === key)?.markdown ?? '', '', 'nothing written over the placeholders');
  });
});
