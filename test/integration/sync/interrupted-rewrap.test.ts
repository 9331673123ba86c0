import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 704 (rerun): B rewrapped a line of a page (the same words, a line broken elsewhere), and its run was
 * killed after the push's intent, before the overwrite went out. The next run asked whether the write had landed:
 * the document read as the body sent, past spacing (the comparison every read-back makes), so it was taken for
 * landed, the rewrapped text recorded as agreed and the file said unchanged. The document never got the rewrap,
 * nor did A, and nothing said so.
 */
const TEXT =
  '# Buffers\n\nThe optional `start` and `end` arguments are passed on to `slice()`, while the `encoding` is passed on to `toString()` of the resulting Buffer.\n\n' +
  '```js\nbl.toString()\n```\n\nA closing paragraph.\n';
const REWRAPPED = TEXT.replace('is passed on to `toString()`', 'is passed on\nto `toString()`');

const page = (f: { remoteDoc(title: string): { readonly markdown?: string } }): string => f.remoteDoc('Buffers').markdown ?? '';

for (const keyless of [false, true]) {
  test(`a rewrap whose push was killed before its write reaches the document and the other machine${keyless ? ' (keyless team)' : ''}`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'buffers.md': TEXT });
      em.admin.setClockOffset(4 * 60_000);
      await b.write('buffers.md', REWRAPPED);
      const killed = await b.sync([], { KBSYNC_CRASH_AT: 'after-intent' });
      assert.equal(killed.signal, 'SIGKILL', `B is killed after its push's intent: ${killed.stderr}`);
      assert.equal(page(a), TEXT, 'the write never went out');

      em.admin.setClockOffset(5 * 60_000);
      const rerun = await synced(b);
      assert.deepEqual(
        rerun.results.filter((r) => r.path === 'buffers.md').map((r) => r.ok && r.result),
        ['pushed'],
        `B's next run sends the rewrap: ${JSON.stringify(rerun.results)}`,
      );
      assert.equal(page(b), REWRAPPED, 'the document has the rewrap');

      // A, which never saw it, edits another paragraph: its merge keeps the rewrap.
      em.admin.setClockOffset(7 * 60_000);
      const edited = TEXT.replace('A closing paragraph.', 'A closing paragraph, from A.');
      await a.write('buffers.md', edited);
      await synced(a);
      const both = REWRAPPED.replace('A closing paragraph.', 'A closing paragraph, from A.');
      assert.equal(await a.read('buffers.md'), both, "A has B's rewrap and its own edit");
      assert.equal(page(a), both);
      em.admin.setClockOffset(9 * 60_000);
      await synced(b);
      assert.equal(await b.read('buffers.md'), both, "B has A's edit and keeps its rewrap");
      em.admin.setClockOffset(11 * 60_000);
      assert.doesNotMatch(JSON.stringify([...(await synced(a)).results, ...(await synced(b)).results]), /"held"|HIDDEN_EDIT|FLATTEN/, 'nothing held or said after');
    });
  });
}
