import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 759 (keyed): B had pulled A's edit of a page exactly, so its record names A's version as the one
 * it was made from and as its own. A then mixed the file's line endings: a record of a version made from that very
 * one, which the document does not show. B took it for a sibling of its own version (made from the same one) and
 * for A's layout of it, and stayed "unchanged": the endings never came. A colleague's words on one of those lines
 * later merged against the wrong base, the line's CRLF was lost on B alone, and the machines' files differed for good.
 */
const TEXT = '# Guide\n\nFirst paragraph here.\n\nNo arguments are _required_ for the constructor, but you can pass `Buffer` objects.\n\nThird paragraph here.\n';
const EDITED = TEXT.replace('First paragraph here.', 'First paragraph, edited here.');
// Mixed: CRLF on the heading, the second paragraph (the one the colleague writes in) and the last line.
const MIXED = EDITED.replace('# Guide\n\n', '# Guide\r\n\r\n').replace('objects.\n', 'objects.\r\n').replace('Third paragraph here.\n', 'Third paragraph here.\r\n');

/** Both machines with A's edit of the page, B's by pulling A's version exactly; then A's line endings mixed, recorded. */
async function endingsMixedAfterPull(em: RunningEmulator, a: SyncFixture, b: SyncFixture, sync: (f: SyncFixture) => Promise<SyncReport>): Promise<void> {
  await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
  await a.write('guide.md', EDITED);
  await sync(a);
  await sync(b);
  assert.equal(await b.read('guide.md'), EDITED);
  await a.write('guide.md', MIXED);
  await sync(a);
}

test("line endings changed on another machine reach a machine that had pulled that machine's version", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const { sync } = minuteByMinute(em);
    await endingsMixedAfterPull(em, a, b, sync);
    const report = await sync(b);
    assert.deepEqual(report.results.map((r) => (r.ok ? r.result : r.code)), ['pulled']);
    assert.equal(await b.read('guide.md'), MIXED);
    for (const f of [a, b]) await sync(f);
    assert.equal(await a.read('guide.md'), MIXED);
    assert.equal(await b.read('guide.md'), MIXED);
  });
});

for (const first of ['A', 'B'] as const) {
  test(`a colleague's words on a line whose ending another machine changed keep both, on both machines (${first} reads the words first)`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await endingsMixedAfterPull(em, a, b, sync);
      const page = a.remoteDoc('Guide');
      em.admin.editDocument(page.dentryUuid, (page.markdown ?? '').replace('for the constructor', 'for c275z quartz maple the constructor'));
      for (const f of first === 'A' ? [a, b, a, b] : [b, a, b, a]) await sync(f);
      const expected = MIXED.replace('for the constructor', 'for c275z quartz maple the constructor');
      assert.equal(await a.read('guide.md'), expected, "A keeps its CRLF on the line with the colleague's words");
      assert.equal(await b.read('guide.md'), expected, 'B ends with the same bytes');
    });
  });
}
