import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Found by the model test (seed 5): a file moved on one workstation while the other changed a link's address
 * in it. The service reads the link back as its text, so only the Markdown the other machine published (the
 * shared state's source) shows that edit; a move that merged from the service's reading alone re-made the
 * document without it. Keyless (no state key), so the old document cannot be deleted: it stays and is renamed.
 */
test("a move on B while A changed a link's address: the document keeps A's address, and B's file has it too", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  const keyless = { env: { KBSYNC_STATE_KEY: '' } };
  const a = await createSyncFixture({ shared: em, ...keyless });
  const b = await createSyncFixture({ shared: em, ...keyless });
  try {
    await a.write('semver.md', '# Semver\n\nRead [the spec](https://example.com/spec) first.\n\nMore text.\n');
    assert.equal((await a.sync()).code, 0);
    assert.equal((await b.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);

    await mkdir(join(b.root, 'ref'));
    await rename(join(b.root, 'semver.md'), join(b.root, 'ref', 'semver.md'));
    await a.write('semver.md', (await a.read('semver.md')).replace('https://example.com/spec', 'https://example.com/spec-2'));
    const pushed = await a.sync();
    assert.equal(pushed.code, 0, pushed.stderr);
    em.admin.setClockOffset(4 * 60_000);

    const moved = await b.sync();
    assert.equal(moved.code, 0, `${moved.stderr} ${JSON.stringify(moved.report?.results)}`);
    const result = moved.report?.results.find((r) => r.path === 'ref/semver.md');
    assert.ok(result?.ok && result.result !== 'held', `the move is carried out, not held: ${JSON.stringify(result)}`);
    assert.match(await b.read('ref/semver.md'), /spec-2/, "A's address comes into B's file");
    assert.equal(a.remoteDocs().length, 1, 'one document');
    assert.match(a.remoteDoc('Semver').markdown ?? '', /spec-2/, "the document keeps A's address");
  } finally {
    await a.close();
    await b.close();
    await em.close();
  }
});
