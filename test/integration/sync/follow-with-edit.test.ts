import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { userNodes, type SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Model seed 4001: B's user added a paragraph while A renamed the file, and B's next run followed the rename.
 * The document had not changed, so the file was moved and nothing more: the run said `pulled`, and the
 * paragraph stood in B's file alone, unsaid, until some later run. The run that moves an edited file decides
 * its edit at the new path too, as any run decides an edit: published, or held and said.
 */
const TEXT = '# Levenshtein\n\nFast distance.\n\nIn one pass.\n';

/**
 * lev.md published on both machines, then renamed to distance.md on A and synced there; B's user saves `text`
 * at the old path, and B's next run, which follows the rename, is returned with its result for the file.
 */
async function followedWith(em: RunningEmulator, a: SyncFixture, b: SyncFixture, text: string): Promise<{ readonly run: SyncReport; readonly result: SyncReport['results'][number] | undefined }> {
  // Both know the document's time (a record made in its minute would read it again anyway).
  await publishedOnBoth(em, a, b, { 'lev.md': TEXT });
  em.admin.setClockOffset(4 * 60_000);
  await rename(join(a.root, 'lev.md'), join(a.root, 'distance.md'));
  await reported(a);
  em.admin.setClockOffset(6 * 60_000);
  await b.write('lev.md', text);
  const run = await reported(b);
  return { run, result: run.results.find((r) => r.path === 'distance.md') };
}

for (const keyless of [false, true]) {
  test(`${keyless ? 'a keyless team' : 'a team with a state key'}: a file edited here that another machine renamed: the run that follows the rename publishes the edit`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const edited = `${TEXT}\nA paragraph added on B.\n`;
      const { run, result } = await followedWith(em, a, b, edited);
      assert.ok(result?.ok, JSON.stringify(run.results));
      assert.equal(result.action, 'move-local');
      assert.equal(result.result, 'pushed', `the edit is sent in the run that moves the file: ${JSON.stringify(result)}`);
      assert.match(result.detail ?? '', /as another machine renamed it/);
      assert.equal(await b.exists('lev.md'), false);
      assert.equal(await b.read('distance.md'), edited);
      const docs = userNodes(a.remoteDocs()).filter((node) => node.docType === 'DOC');
      assert.deepEqual(docs.map((doc) => doc.title), ['Levenshtein'], 'the same document, none made');
      assert.match(docs[0]?.markdown ?? '', /A paragraph added on B\./);

      // Steady: the next run of B writes nothing, and A takes the edit in.
      em.admin.setClockOffset(8 * 60_000);
      const again = await reported(b);
      assert.equal(again.callsByEndpoint['overwriteContent'] ?? 0, 0, JSON.stringify(again.results));
      await reported(a);
      assert.equal(await a.read('distance.md'), edited);
    });
  });
}

// An edit kbsync must hold is held by that run, and said: an emptied file (an editor mid-save) left the
// document as it was, and the run said only that the file was pulled.
test('a file emptied here that another machine renamed: the run that follows the rename holds it, says so, and `kbsync resolve` lists it', async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const { run, result } = await followedWith(em, a, b, '');
    assert.ok(result?.ok, JSON.stringify(run.results));
    assert.equal(result.result, 'held', JSON.stringify(result));
    assert.match(result.detail ?? '', /as another machine renamed it; .*it is empty now/);
    assert.equal(await b.read('distance.md'), '');
    assert.equal(a.remoteDoc('Levenshtein').markdown?.includes('Fast distance.'), true, 'the document is as it was');
    const listed = JSON.parse((await b.cli(['resolve', '--json'])).stdout) as ResolveReport;
    assert.deepEqual(listed.held.map((held) => [held.path, held.code]), [['distance.md', 'EMPTIED']]);
  });
});
