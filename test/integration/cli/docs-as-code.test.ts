import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

test('the docs-as-code recipe: `sync --push --json` from a fresh checkout (no state) again and again adopts by title, never duplicates', async () => {
  await withSyncFixture(async (f) => {
    await f.write('index.md', '# Handbook\n\nStart with [setup](guides/setup.md).\n');
    await f.write('guides/setup.md', '# Setup\n\nInstall it. Back to the [handbook](../index.md).\n');
    const first = await f.sync(['--push']);
    assert.equal(first.code, 0, first.stderr);
    const docs = f.remoteDocs().map((doc) => [doc.title, doc.markdown]).sort();

    for (let run = 0; run < 2; run++) {
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true }); // CI: a fresh checkout has no ledger
      const again = await f.sync(['--push']);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(f.remoteDocs().map((doc) => [doc.title, doc.markdown]).sort(), docs, 'same documents, same bodies: nothing duplicated or rewritten');
      assert.equal(again.report?.callsByEndpoint['createDocument'] ?? 0, 0);
      assert.equal(again.report?.callsByEndpoint['overwriteContent'] ?? 0, 0);
    }
  });
});
