import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** Two workstations of a team without a state key on one workspace; `fn` gets both and the service. */
async function withKeylessPair(fn: (em: RunningEmulator, a: SyncFixture, b: SyncFixture) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const keyless = { env: { KBSYNC_STATE_KEY: '' } };
  const a = await createSyncFixture({ shared: em, ...keyless });
  const b = await createSyncFixture({ shared: em, ...keyless });
  try {
    await fn(em, a, b);
  } finally {
    await a.close();
    await b.close();
    await em.close();
  }
}

/**
 * Found by the model test (seed 5): a file moved on one workstation while the other changed a link's address
 * in it. The service reads the link back as its text, so only the Markdown the other machine published (the
 * shared state's source) shows that edit; a move that merged from the service's reading alone re-made the
 * document without it. Keyless (no state key), so the old document cannot be deleted: it stays and is renamed.
 */
test("a move on B while A changed a link's address: the document keeps A's address, and B's file has it too", async () => {
  await withKeylessPair(async (em, a, b) => {
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
  });
});

// Found by the model test (seed 6): without the key, B kept its old name for good, and nothing said so.
test('a file renamed on A (same folder, so the document stays) is renamed on B, where it is unchanged', async () => {
  await withKeylessPair(async (em, a, b) => {
    await a.write('guides/picomatch.md', '# Why picomatch?\n\nBecause.\n');
    assert.equal((await a.sync()).code, 0);
    assert.equal((await b.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    await rename(join(a.root, 'guides', 'picomatch.md'), join(a.root, 'guides', 'moved-picomatch.md'));
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(4 * 60_000);

    const followed = await b.sync();
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(await b.exists('guides/picomatch.md'), false);
    assert.equal(await b.read('guides/moved-picomatch.md'), await a.read('guides/moved-picomatch.md'));
    assert.equal(a.remoteDocs().length, 1, 'one document');
  });
});
