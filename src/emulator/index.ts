import { createAdmin, type EmulatorAdmin } from './admin/admin.js';
import { CallCounter } from './calls.js';
import { Clock } from './clock.js';
import { FaultInjector } from './faults.js';
import { Operations } from './operations.js';
import { DEFAULT_RATE_LIMIT, DEFAULT_TOKEN_HEADER, validateOptions, type EmulatorOptions } from './options.js';
import { IdGenerator, randomSeed } from './random.js';
import { RateLimiter } from './rate-limit.js';
import type { Runtime } from './runtime.js';
import { ensureSeed, type EmulatorSeed } from './seed.js';
import { closeServer, createEmulatorServer, listen } from './server.js';
import { Store } from './store/store.js';
import { workspaceUrl } from './views.js';

export type { EmulatorOptions } from './options.js';
export type { FaultSpec } from './faults.js';
export { parseFaultSpec } from './faults.js';
export type { CallStats, EndpointCalls, FaultKind } from './calls.js';
export type { EmulatorAdmin, RemoteCreateInput, RemoteCreated, ActAs } from './admin/admin.js';
export type { EmulatorDump, DumpedNode } from './admin/dump.js';
export { ENDPOINTS, type EndpointName } from './endpoints.js';
export { Scope, ALL_SCOPES, READ_SCOPES } from './scopes.js';
export type { ServiceBlock } from './store/types.js';
export type { EmulatorSeed } from './seed.js';

export type RunningEmulator = {
  readonly url: string;
  readonly seed: EmulatorSeed;
  readonly admin: EmulatorAdmin;
  close(): Promise<void>;
};

/** The id seed lives in the state file: a restarted file-backed emulator keeps generating fresh, unique ids. */
function idSeedOf(store: Store, requested: number | undefined): number {
  const stored = store.getMeta('idSeed');
  if (stored !== undefined) return Number(stored);
  const seed = requested ?? randomSeed();
  store.setMeta('idSeed', String(seed));
  return seed;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  validateOptions(options);
  const store = new Store(options.statePath ?? ':memory:');
  try {
    const idSeed = idSeedOf(store, options.seed);
    const ids = new IdGenerator(String(idSeed), () => store.nextCounter());
    const clock = new Clock(options.clockOffsetMs ?? 0);
    const ops = new Operations(store, ids, clock);
    const faults = new FaultInjector(options.seed ?? idSeed, options.faults);
    const closing = new AbortController();
    let requestCounter = 0;
    const rt: Runtime = {
      store,
      ops,
      clock,
      faults,
      limiter: new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT),
      counter: new CallCounter(),
      tokenHeader: (options.tokenHeader ?? DEFAULT_TOKEN_HEADER).toLowerCase(),
      baseUrl: '',
      closing: closing.signal,
      nextRequestId: () => `req-${idSeed.toString(36)}-${(++requestCounter).toString(36)}`,
    };
    const seedRecord = ensureSeed(store, ops, ids);
    const admin = createAdmin(rt, seedRecord);
    const server = createEmulatorServer(rt, admin, seedRecord);
    const address = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    rt.baseUrl = `http://${host}:${address.port}`;
    let closed: Promise<void> | undefined;
    return {
      url: rt.baseUrl,
      seed: { ...seedRecord, baseUrl: rt.baseUrl, tokenHeader: rt.tokenHeader, workspaceUrl: workspaceUrl(rt.baseUrl, seedRecord.workspaceId) },
      admin,
      close: () => {
        closed ??= (async () => {
          closing.abort();
          await closeServer(server);
          store.close();
        })();
        return closed;
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
