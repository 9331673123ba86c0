import { startEmulator } from '../../src/emulator/index.js';
import { startHostileProxy, type HostileProxy, type ProxiedRequest, type ProxyAnswer } from './odd-servers.js';
import { withSyncFixture, type FixtureOptions, type SyncFixture } from './sync-fixture.js';

/** What a test turns the service into: `bad` answers the requests it wants to, undefined lets the service answer. */
export type Turn = (bad: (request: ProxiedRequest) => ProxyAnswer) => void;

/**
 * A whole sync against a service gone bad in one place: the emulator behind a proxy that answers some
 * requests itself. `intercept` is read on every request, so a test can turn the service bad after an
 * honest first sync.
 */
export async function withHostileService(fn: (f: SyncFixture, proxy: HostileProxy, turn: Turn) => Promise<void>, options: FixtureOptions = {}): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  let intercept: (request: ProxiedRequest) => ProxyAnswer = () => undefined;
  const proxy = await startHostileProxy(em.url, (request) => intercept(request));
  try {
    await withSyncFixture((f) => fn(f, proxy, (bad) => (intercept = bad)), {
      ...options,
      shared: em,
      // Paced far above the real 20/s: an endless listing's 1,000 refused pages then take a second, not a minute.
      config: { service: { baseUrl: proxy.url, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' }, rateLimit: 1000 } },
    });
  } finally {
    await proxy.close();
    await em.close();
  }
}

/** The path of the node listing (4.3). */
export const LIST = '/v2.0/wiki/nodes';
export const isListing = (request: ProxiedRequest): boolean => request.method === 'GET' && request.path === LIST;
