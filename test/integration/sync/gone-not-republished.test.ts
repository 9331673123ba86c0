import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { foldedState } from '../../helpers/state-reader.js';
import { minuteByMinute, publishedOnBoth, reported, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 7329 (a keyless team): A moved a file to another folder (a new document, the old one deleted, and a
 * `gone` of it in the shared state); B, which had not run since, pushed an edit of another file. Its push read
 * the state, found no record of the old path, and published its own older record of it again, which stood over
 * the `gone` by its later stamp: every fresh checkout then paired the path with a deleted document, and a CI job
 * of A's folder (which has nothing to publish) wrote a `gone` of its own. A deletion on A does the same.
 */
const PAGE = '# p-limit\n\nRun promises with limited concurrency.\n\nMore text.\n';
const OTHER = '# Other\n\nA page both have.\n';

const ENDINGS: readonly { readonly how: string; readonly end: (a: SyncFixture) => Promise<void> }[] = [
  {
    how: 'moved to another folder',
    end: async (a) => {
      await mkdir(join(a.root, 'guides'));
      await rename(join(a.root, 'ref', 'p-limit.md'), join(a.root, 'guides', 'p-limit.md'));
    },
  },
  { how: 'deleted', end: (a) => a.remove('ref/p-limit.md') },
];

for (const { how, end } of ENDINGS) {
  test(`a file ${how} on A: B's push of another file publishes no record of its old document, and a CI job of A's folder writes nothing`, async () => {
    await withWorkstationPair(true, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'ref/p-limit.md': PAGE, 'other.md': OTHER });
      const { sync, tick } = minuteByMinute(em);

      await end(a);
      const ended = await sync(a);
      assert.ok(ended.results.every((r) => r.ok), JSON.stringify(ended.results));
      assert.equal(foldedState(a, null).entries.get('ref/p-limit.md'), undefined, "A's run ends the old path's record");

      await b.write('other.md', `${OTHER}\nEdited on B.\n`);
      tick();
      const pushed = await reported(b, ['--push']);
      assert.ok(pushed.results.some((r) => r.ok && r.path === 'other.md' && r.result === 'pushed'), JSON.stringify(pushed.results));
      assert.equal(foldedState(a, null).entries.get('ref/p-limit.md'), undefined, "B's push publishes no record of the document A ended");

      // A takes B's edit in, then a CI job pushes a fresh checkout of A's folder (no ledger): everything is
      // published, so it writes nothing.
      const pulled = await sync(a);
      assert.ok(pulled.results.some((r) => r.ok && r.path === 'other.md' && r.result === 'pulled'), JSON.stringify(pulled.results));
      const ci = await createSyncFixture({ shared: em, env: { KBSYNC_STATE_KEY: '' } });
      try {
        await cp(a.root, ci.root, { recursive: true, filter: (src) => !src.startsWith(join(a.root, '.kbsync')) });
        tick();
        const run = await reported(ci, ['--push']);
        const writes = ['createDocument', 'overwriteContent', 'appendText', 'deleteDocument'].filter((endpoint) => run.callsByEndpoint[endpoint]);
        assert.deepEqual(writes, [], `a CI job of A's folder writes nothing: ${JSON.stringify(run.results)}`);
      } finally {
        await ci.close();
      }
    });
  });
}
