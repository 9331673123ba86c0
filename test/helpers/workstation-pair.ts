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
