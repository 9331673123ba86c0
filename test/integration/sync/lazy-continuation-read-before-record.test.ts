import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { onceAt } from '../../helpers/gate-proxy.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, readBeforeRecord, saidIn, withGatedPair, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 736 (issue 44, keyless): A rewrapped a list item, its second line left lazy (not indented), and
 * wrote it; B's run had read the shared state before A's record came, read the write, and took the changed item in
 * from the plain reading, laid out as its Markdown writer lays it (indented). B's record of that text, exact, of A's
 * very blocks, and agreed later, stood for a later version than A's own: A's next edit, elsewhere in the page, was
 * held as a conflict "at line 49, 49" whose only difference was that indentation, and `kbsync resolve` listed no
 * clash to settle. Another writer's layout of our own write is no news (sync/views/assess.ts respelling).
 *
 * Convergence soak 741: with that fixed, the two machines' files kept their two layouts for good. Both carried their
 * front matter (`hc`) from a colleague's edit, so the fold let B's reading, published after A's record, stand over it:
 * B never saw A's record again, and A took B's for a respelling. B's reading now says it is one (`pr`): it never
 * stands over the writer's exact record of those very blocks made from the same version, and B takes A's text.
 */
const PAGE = '# Differences\n\n1. _Object keys_ are sorted instead of using the\n   insertion order (configurable).\n1. _BigInt_ values are stringified.\n\nSecond paragraph.\n\nThird paragraph.\n';

/** Where B stands after A's write was read before its record came (the set-up of the soak): B's file, A's lazy one. */
type ReadBeforeRecord = { readonly em: RunningEmulator; readonly a: SyncFixture; readonly b: SyncFixture; readonly sync: (f: SyncFixture) => Promise<SyncReport>; readonly page: string; readonly lazy: string };

/**
 * Both machines hold PAGE, then a colleague's deletion (each keeps its own front matter, `hc`, as in the soak); A
 * rewraps the first item, its second line lazy, and its write lands, A killed before its record; B reads the state
 * before that record comes, and the page after, and takes the item in with its own layout (indented).
 */
async function afterReadBeforeRecord(keyless: boolean, fn: (pair: ReadBeforeRecord) => Promise<void>): Promise<void> {
  let page = '';
  const gate = onceAt((request) => page !== '' && request.path.includes(`/documents/${page}/blocks`));
  await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
    const { sync, tick } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'diff.md': PAGE });
    page = a.remoteDoc('Differences').dentryUuid;
    em.admin.editDocument(page, (a.remoteDoc('Differences').markdown ?? '').replace('\n\nThird paragraph.', ''));
    for (const f of [a, b]) await sync(f);
    const lazy = (await a.read('diff.md')).replace('using the\n   insertion', 'using\nthe insertion');
    await readBeforeRecord({ a, b, gate, sync, tick }, 'diff.md', lazy);
    assert.equal(await b.read('diff.md'), lazy.replace('using\nthe insertion', 'using\n   the insertion'), 'B took the item in with its own layout');
    await fn({ em, a, b, sync, page, lazy });
  });
}

/** The codes four runs (A, B, A, B) said, and whether they wrote the page (overwriteContent or appendText). */
async function fourRuns({ em, a, b, sync, page }: ReadBeforeRecord): Promise<{ readonly said: string[]; readonly wrote: Partial<Record<string, number>> }> {
  const before = em.admin.callsOn(page);
  const said: string[] = [];
  for (const f of [a, b, a, b]) said.push(...saidIn(await sync(f)));
  const after = em.admin.callsOn(page);
  const wrote = Object.fromEntries((['overwriteContent', 'appendText'] as const).map((write) => [write, (after[write] ?? 0) - (before[write] ?? 0)]));
  return { said, wrote };
}

for (const keyless of [false, true]) {
  test(`another machine's layout of our write holds no later edit of ours (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await afterReadBeforeRecord(keyless, async (pair) => {
      const { a, b, sync, lazy } = pair;
      // Once A's exact record of those very blocks is there, B's file, untouched since, takes A's layout: quietly, and
      // writing nothing to the document, which has it already (convergence soak 741: B's reading stood for good).
      const { said, wrote } = await fourRuns(pair);
      assert.equal(await b.read('diff.md'), lazy, "B converges to A's layout once A's record is there");
      assert.deepEqual(said, [], 'nothing said: no notice, no hold, no conflict');
      assert.deepEqual(wrote, { overwriteContent: 0, appendText: 0 }, 'nothing written to the page: it has that text');
      const edited = lazy.replace('BigInt_ values', 'BigInt_ values (u65z)');
      await a.write('diff.md', edited);
      for (const f of [a, b, a, b]) await sync(f);
      assert.deepEqual((await readdir(a.root)).filter((name) => name.includes('.conflict-')), [], 'no conflict on A');
      assert.equal(await a.read('diff.md'), edited, "A's edit stays in A's file");
      assert.ok((await b.read('diff.md')).includes('(u65z)'), "B has A's edit");
      assert.ok((a.remoteDoc('Differences').markdown ?? '').includes('(u65z)'), "the document has A's edit");
    });
  });

  // B's user edits another line before A's record is known to B: the merge keeps that edit and takes A's layout of
  // the item B did not touch; B's edit reaches the document and A, and nothing is held.
  test(`a reading edited since takes the writer's layout where it was not edited (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await afterReadBeforeRecord(keyless, async (pair) => {
      const { a, b, lazy } = pair;
      const mine = (await b.read('diff.md')).replace('Second paragraph.', 'Second paragraph, edited on B.');
      await b.write('diff.md', mine);
      const { said } = await fourRuns(pair);
      const both = lazy.replace('Second paragraph.', 'Second paragraph, edited on B.');
      assert.deepEqual(said, [], 'nothing said: no notice, no hold, no conflict');
      assert.equal(await b.read('diff.md'), both, "B's edit, with A's layout of the item");
      assert.equal(await a.read('diff.md'), both, "A has B's edit, its own layout kept");
      assert.deepEqual((await readdir(b.root)).filter((name) => name.includes('.conflict-')), [], 'no conflict on B');
    });
  });
}

/**
 * The rule's bound: only a version made from the very one ours was made from, without knowing ours (a reading of our
 * write), is no news for its layout. A user's layout edit, made on a version both machines know, is a later version:
 * the document carries it as they wrote it, and the other machine takes it in so. (The rule's first cut took any
 * version of the record's blocks saying the same Markdown for a respelling: the machine that followed a forced move
 * kept its own layout of the page, a blank line fewer than the mover's file; move-over-placeholders.test.ts.)
 */
for (const keyless of [false, true]) {
  test(`a layout edit of a user's file reaches the document and the other machine as written (${keyless ? 'keyless' : 'keyed'})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'diff.md': PAGE });
      const relaid = PAGE.replace('using the\n   insertion', 'using the\ninsertion').replace('\n\nThird', '\n\n\nThird');
      await a.write('diff.md', relaid);
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(a.remoteDoc('Differences').markdown, relaid, 'the document holds the file as the user laid it out');
      assert.equal(await a.read('diff.md'), relaid);
      assert.equal(await b.read('diff.md'), relaid, "B takes A's layout");
    });
  });
}
