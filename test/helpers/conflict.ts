import assert from 'node:assert/strict';
import { syncOnce } from './in-process-sync.js';
import type { SyncFixture } from './sync-fixture.js';

export const BASE = '# Plan\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n';

/** A real conflict on plan.md: both sides change the first two paragraphs differently; the file also changes the third alone. Returns the copy. */
export async function clash(f: SyncFixture): Promise<string> {
  // The service's clock stands mid-minute: a minute ending between two runs would have the held run read the
  // shared state once more (its open minute is over), which this test counts as a read of a held file.
  f.em.admin.freezeClock(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
  await f.write('plan.md', BASE);
  assert.equal((await syncOnce(f)).code, 0);
  f.em.admin.setClockOffset(120_000);
  f.em.admin.editDocument(f.remoteDoc('Plan').dentryUuid, '# Plan\n\nFirst, theirs.\n\nSecond, theirs.\n\nThird paragraph.\n');
  await f.write('plan.md', '# Plan\n\nFirst, mine.\n\nSecond, mine.\n\nThird paragraph, mine only.\n');
  const run = await f.sync();
  assert.equal(run.code, 1, 'a conflict is not synced yet');
  const copy = run.report?.conflicts[0];
  assert.ok(copy, JSON.stringify(run.report));
  assert.equal(f.remoteDoc('Plan').markdown, '# Plan\n\nFirst, theirs.\n\nSecond, theirs.\n\nThird paragraph.\n', 'the knowledge base keeps the version already published');
  // Held, for free, until settled.
  f.em.admin.resetCalls();
  const held = await f.sync();
  assert.equal(held.code, 1);
  assert.deepEqual(held.report?.planned, [{ path: 'plan.md', kind: 'held', reason: 'CONFLICT_OPEN' }]);
  assert.equal(f.em.admin.calls().byEndpoint.readBlocks.calls, 0);
  return copy;
}

/** The next sync publishes `expected` (file and document agree), and the one after does nothing. */
export async function publishes(f: SyncFixture, expected: string): Promise<void> {
  const run = await f.sync();
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(f.remoteDoc('Plan').markdown, expected);
  assert.equal(await f.read('plan.md'), expected);
  assert.deepEqual((await f.sync()).report?.planned, [], 'steady');
}
