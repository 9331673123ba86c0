import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localFiles } from '../../helpers/reliability.js';
import type { RunningEmulator } from '../../helpers/emulator.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 735 (issue 44): B bolded words of its own and sent the page, merged with A's write; publishing
 * its record of that write failed (throttled), and B read its write back in a later run that could not publish
 * either. A read the write plainly (bold is not in a read), took the words for a colleague's, their formatting
 * unseen, and published that reading, made from A's own write as B's was, of the very blocks B's write left. B's next
 * run took that reading for another branch of A's write (two writes of one version in one moment) and opened a
 * conflict over the very line it had written: its bold against A's plain words, with nothing to settle.
 */
const PAGE = '# Autolink\n\nFind links in text.\n\n* a first item\n* [`micromark-extension`](https://example.com/ext)\n';
const BOLD = (text: string): string => text.replace('* [`micromark', '* **u95z orbit** [`micromark');
const BOLDED = BOLD(PAGE.replace('* a first item', '* a first item c74z signal'));
const A_WROTE = (text: string): string => text.replace('Find links in text.', 'Find links in text.\n\nNew u90z here.');

/** Up to A's published plain reading of B's write, whose record never reached the shared state. */
async function readBeforeRecord(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<ReturnType<typeof minuteByMinute>> {
  const steps = minuteByMinute(em);
  await publishedOnBoth(em, a, b, { 'autolink.md': PAGE });
  const doc = a.remoteDoc('Autolink');
  em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('* a first item', '* a first item c74z signal'));
  for (const f of [a, b]) await steps.sync(f);
  await a.write('autolink.md', A_WROTE(await a.read('autolink.md')));
  await steps.sync(a);
  await b.write('autolink.md', BOLD(await b.read('autolink.md')));
  steps.tick();
  em.admin.setFaults('5xx=1,only=appendText');
  // The second run reads the write back (its record then holds the blocks read, not the ones predicted).
  for (let run = 0; run < 2; run++) {
    const failed = await reported(b);
    assert.ok(failed.problems.some((p) => p.code === 'STATE_NOT_PUBLISHED'), `B's record of its write never reached the state: ${JSON.stringify(failed.problems)}`);
  }
  em.admin.setFaults({});
  assert.equal(a.remoteDoc('Autolink').markdown, A_WROTE(BOLDED), "B's merge of its bold and A's paragraph landed");
  const read = await reported(a);
  assert.ok(!(await a.read('autolink.md')).includes('**u95z'), `A read the words plainly: ${JSON.stringify(saidIn(read))}`);
  return steps;
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a machine's write read plainly by another before its record: no conflict, and the write's formatting reaches both (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync } = await readBeforeRecord(em, a, b);
      const waiting: string[] = [];
      for (const [name, f] of [['B', b], ['A', a], ['B', b], ['A', a]] as const) {
        const report = await sync(f);
        waiting.push(...report.results.filter((r) => !r.ok || r.result === 'conflict' || r.result === 'held').map((r) => `${name} ${JSON.stringify(r)}`));
      }
      assert.deepEqual(waiting, [], 'no conflict, no hold');
      for (const f of [a, b]) assert.deepEqual([...(await localFiles(f.root)).keys()], ['autolink.md'], 'no conflict copy');
      assert.equal(await b.read('autolink.md'), A_WROTE(BOLDED), 'B keeps its bold');
      assert.equal(a.remoteDoc('Autolink').markdown, A_WROTE(BOLDED), 'the document keeps it');
      assert.equal(await a.read('autolink.md'), A_WROTE(BOLDED), "A takes B's bold from B's record");
    });
  });
}

test("after that reading, a colleague's change of the very words B changes too is still a conflict (keyed)", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const { sync } = await readBeforeRecord(em, a, b);
    const doc = a.remoteDoc('Autolink');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('u95z orbit', 'u95z comet'));
    await b.write('autolink.md', (await b.read('autolink.md')).replace('**u95z orbit**', '**u95z planet**'));
    const report = await sync(b);
    assert.ok(report.results.some((r) => r.ok && r.result === 'conflict'), JSON.stringify(report.results));
    assert.match(await b.read('autolink.md'), /\*\*u95z planet\*\*/, 'B keeps its words in the file');
    assert.match(a.remoteDoc('Autolink').markdown ?? '', /u95z comet/, "the document keeps the colleague's");
  });
});
