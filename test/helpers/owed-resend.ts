import assert from 'node:assert/strict';
import type { SyncFixture } from './sync-fixture.js';

/**
 * `a.md` linking to `b.md`, published first; then `b.md` made while every overwrite fails, so a.md's re-send
 * (its link now has a URL) fails and is owed. Returns the failing run, faults cleared after it.
 */
export async function owedResend(f: SyncFixture): Promise<Awaited<ReturnType<SyncFixture['sync']>>> {
  await f.write('a.md', '# A\n\nSee [b](b).\n');
  assert.equal((await f.sync(['--push'])).code, 0);
  await f.write('b.md', ''); // an empty file: its document is made without writing a body
  f.em.admin.setFaults('5xx=1,only=overwriteContent');
  const failing = await f.sync(['--push']);
  assert.deepEqual(failing.report?.results.filter((r) => !r.ok).map((r) => r.path), ['a.md'], 'the re-send failed: owed');
  f.em.admin.setFaults('');
  return failing;
}
