import { test } from 'node:test';
import assert from 'node:assert/strict';
import { minuteByMinute, publishedOnBoth, saidIn, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 753: A deleted a heading of a page with code; B read that write before A's record came, plainly,
 * and its reading was A's very text (a delete shows whole; the code block B filled in from its own copy, unchanged).
 * Such a reading is marked in doubt (the code could have changed unseen). A's exact record of that very text then
 * came, and said what B could not see; but B, its text the same, took nothing in and kept its doubt: its next edit of
 * the page, which nobody had edited in the web editor, was held FLATTEN for good.
 */
const PAGE = '# Guide\n\nRun this:\n\n```sh\nnpm ci\n```\n\n## Notes\n\nFirst note.\n\nSecond note.\n';

for (const keyless of [false, true]) {
  test(`a plain reading of a write that is the writer's very text loses its doubt once the writer's record comes${keyless ? ' (keyless team)' : ''}`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'guide.md': PAGE, 'other.md': '# Other\n\nWords.\n' });
      const written = PAGE.replace('## Notes\n\n', '');
      await a.write('guide.md', written);
      assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).code, 0, 'A is killed between its write and its record');
      const { sync } = minuteByMinute(em);
      await sync(b);
      assert.equal(await b.read('guide.md'), written, "B's plain reading is A's very text");
      for (const f of [a, b, a, b]) await sync(f);
      await b.write('guide.md', written.replace('First note.', 'First note, edited on B.'));
      const pushed = await sync(b);
      assert.deepEqual(saidIn(pushed), [], `B's edit is published, not held: ${JSON.stringify(pushed.results)}`);
      await sync(a);
      assert.match(await a.read('guide.md'), /edited on B/);
      assert.equal(await a.read('guide.md'), await b.read('guide.md'));
    });
  });
}
