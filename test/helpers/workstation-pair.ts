import assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createSyncFixture, type SyncFixture } from './sync-fixture.js';

/**
 * Two workstations on one workspace of one emulator (no rate limit); `keyless`: a team without a state key.
 * `fn` gets the service and both; everything is closed after, whatever happens.
 */
export async function withWorkstationPair(keyless: boolean, fn: (em: RunningEmulator, a: SyncFixture, b: SyncFixture) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const env = keyless ? { env: { KBSYNC_STATE_KEY: '' } } : {};
  const a = await createSyncFixture({ shared: em, ...env });
  const b = await createSyncFixture({ shared: em, ...env });
  try {
    await fn(em, a, b);
  } finally {
    await a.close();
    await b.close();
    await em.close();
  }
}

/** A minute on the service's clock the pair tests start at (frozen: the tests move it on by hand). */
export const PAIR_EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);

export type SyncReport = NonNullable<Awaited<ReturnType<SyncFixture['sync']>>['report']>;

/** `kbsync sync --json [args]` on one machine, its report asserted there (a run that printed none fails the test). */
export async function reported(f: SyncFixture, args: readonly string[] = [], env?: Record<string, string>): Promise<SyncReport> {
  const run = await f.sync(args, env);
  assert.ok(run.report, run.stderr);
  return run.report;
}

/**
 * `files` written on A and synced by both, in minutes now over: the clock frozen at PAIR_EPOCH, then two minutes
 * on, where both machines sync again (each learns the time of what it wrote or pulled). The clock stays there.
 */
export async function publishedOnBoth(em: RunningEmulator, a: SyncFixture, b: SyncFixture, files: Readonly<Record<string, string>>): Promise<void> {
  em.admin.freezeClock(PAIR_EPOCH);
  for (const [path, text] of Object.entries(files)) await a.write(path, text);
  await reported(a);
  await reported(b);
  em.admin.setClockOffset(2 * 60_000);
  await reported(a);
  await reported(b);
}
