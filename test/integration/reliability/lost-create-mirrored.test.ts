import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { minuteByMinute, publishedOnBoth, reported, withWorkstationPair } from '../../helpers/workstation-pair.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';

/**
 * Convergence soak 754: A's create made the document and A was killed before it heard the answer. B listed the
 * empty document and pulled it under a name made from its title (`guides/Optionator.md`), and published that record.
 * A's rerun took the document for B's (the record claimed it) and made a second one: "Optionator (2)", and both
 * machines ended with two files. The document is the one A's unfinished create made, and B only mirrored it.
 */
const PAGE = '# Optionator\n\nParse options for a command line program.\n';

const guides = async (f: SyncFixture): Promise<string[]> => (await readdir(join(f.root, 'guides'))).sort();
const titled = (f: SyncFixture): string[] => f.remoteDocs().filter((doc) => doc.title.startsWith('Optionator')).map((doc) => doc.title);

/**
 * A writes guides/optionator.md and is killed once the service made its document (empty), before the answer; B then
 * pulls that document by its title and publishes its record. Returns the pair's minute-by-minute sync.
 */
async function lostCreateMirrored(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<ReturnType<typeof minuteByMinute>['sync']> {
  const { sync } = minuteByMinute(em);
  await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
  await a.write('guides/optionator.md', PAGE);
  const killed = await a.sync([], { KBSYNC_CRASH_AT: 'after-create' });
  assert.equal(killed.signal ?? killed.code, 'SIGKILL', 'A is killed once the service made the document');
  assert.deepEqual(titled(a), ['Optionator'], 'the lost create made the document, empty');
  await sync(b);
  assert.deepEqual(await guides(b), ['Optionator.md'], 'B mirrors the empty document under its title');
  return sync;
}

// Keyless, B's unverified record pairs the document only with a file of B's path here (corroborate.ts), so the rerun
// took it for its own before this fix too: the same outcome is asked of both teams.
for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';

  test(`a create whose answer was lost, its empty document pulled by another machine meanwhile: the rerun fills that document, and both keep one file (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const sync = await lostCreateMirrored(em, a, b);
      const rerun = await sync(a);
      assert.deepEqual(titled(a), ['Optionator'], 'the rerun fills the document its create made: no second one');
      assert.ok(rerun.results.every((r) => r.ok), JSON.stringify(rerun.results));

      for (const f of [b, a, b, a]) await sync(f);
      assert.deepEqual(titled(a), ['Optionator']);
      assert.deepEqual(await guides(a), ['optionator.md'], 'A keeps its file where its user made it');
      assert.deepEqual(await guides(b), ['optionator.md'], "B's mirror follows A's path: one file, not two");
      assert.equal(await a.read('guides/optionator.md'), PAGE);
      assert.equal(await b.read('guides/optionator.md'), PAGE, "B has A's text");
      const settled = await reported(a);
      assert.deepEqual(settled.planned, [], 'steady');
    });
  });

  test(`a create whose answer was lost, its document written on another machine meanwhile: the rerun keeps both texts in one document's files, and makes no second document (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const sync = await lostCreateMirrored(em, a, b);
      const theirs = '# Optionator\n\nWritten on B into the page it found empty.\n';
      await b.write('guides/Optionator.md', theirs);
      await sync(b);

      await sync(a);
      for (const f of [b, a, b, a]) await sync(f);
      assert.deepEqual(titled(a), ['Optionator'], 'no second document');
      assert.equal(await a.read('guides/optionator.md'), PAGE, "A's text stays in A's file");
      const copies = (await guides(a)).filter((name) => name.includes('.conflict-'));
      assert.equal(copies.length, 1, `B's version beside it on A: ${(await guides(a)).join(', ')}`);
      assert.equal(await a.read(`guides/${copies[0] ?? ''}`), theirs);
      assert.deepEqual(await guides(b), ['optionator.md'], "B's file follows A's path");
      assert.equal(await b.read('guides/optionator.md'), theirs, "B's text stays in B's file until the conflict is settled");
    });
  });
}
