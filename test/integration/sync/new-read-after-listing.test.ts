import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ledgerRows } from '../../helpers/reliability.js';
import { saidIn, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 704: A made a page; B listed it when it had only been created, and took it in from A's record once A
 * had written its body, minutes later. B recorded the listing's minute as that version's, so its next listing,
 * showing the minute of A's write, every block the same, said HIDDEN_EDIT of a page nobody had edited, and held it.
 */
for (const keyless of [false, true]) {
  test(`a new page listed before its body was written is not taken for a hidden edit${keyless ? ' (keyless team)' : ''}`, async () => {
    await withArmedPair(keyless, (request) => request.path.includes('/blocks'), async ({ a, b, gate, sync, tick }) => {
      await a.write('guide.md', '# Guide\n\nA new page, with `code` in it.\n\n```sh\nnpm ci\n```\n');
      tick();
      assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'after-create' })).code, 0, 'A is killed once the document is made, before its body');
      // B lists the empty document; before it reads anything, A's next run writes the body and its record, minutes on.
      gate.arm(async () => {
        tick();
        await sync(a);
        tick();
        tick();
      });
      const pulled = await sync(b);
      assert.ok(gate.fired);
      assert.deepEqual(saidIn(pulled), [], "taken in from A's record, nothing to say");
      // The minute B knows that version by is not the listing's, from before A's write.
      const written = a.remoteDoc('Guide').modifiedTime ?? '';
      const known = ledgerRows(b).find((row) => row.path === 'guide.md')?.remoteModifiedTime;
      assert.ok(known === '' || (known ?? '') >= written, `B knows the page by ${known}, not the minute before its body was written (${written})`);
      for (const f of [b, a, b]) assert.deepEqual(saidIn(await sync(f)), [], 'no hidden edit is said: nobody edited the page');
      assert.equal(await b.read('guide.md'), await a.read('guide.md'));
      await b.write('guide.md', (await b.read('guide.md')).replace('A new page', 'A new page, edited on B'));
      const pushed = await sync(b);
      assert.deepEqual(pushed.results.map((r) => (r.ok ? r.result : r.code)), ['pushed'], "B's edit is published, not held");
    });
  });
}
