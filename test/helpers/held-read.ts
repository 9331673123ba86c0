import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { gateProxy } from './gate-proxy.js';
import { createSyncFixture, type SyncFixture } from './sync-fixture.js';

/** A read of a document's blocks, held at the proxy: `reached` once the run sent it, `release` lets it through. */
export type HeldRead = { readonly reached: Promise<void>; readonly release: () => void };

export type ReadGateWorld = {
  readonly em: RunningEmulator;
  readonly f: SyncFixture;
  /** Moves the emulator's frozen clock on by one more minute. */
  readonly tick: () => void;
  /** Holds the next read of `docKey`'s blocks (of any document without it) until released. */
  readonly holdNextRead: (docKey?: string) => HeldRead;
};

/**
 * A sync fixture whose runs reach the emulator through a proxy that can hold one read of a document's blocks,
 * the clock frozen at `epoch`: so a test puts a save between a run's listing and its read (a race a soak found)
 * every time, not by timing.
 */
export async function withReadGate(epoch: number, body: (world: ReadGateWorld) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  em.admin.freezeClock(epoch);
  let minutes = 0;
  let gate: { readonly docKey: string | undefined; readonly reached: () => void; readonly released: Promise<void> } | undefined;
  const proxy = await gateProxy(em.seed.baseUrl, {
    before: (request) => {
      const reads = /^\/v1\.0\/doc\/suites\/documents\/([^/?]+)\/blocks(?:\?|$)/.exec(request.path);
      if (!gate || request.method !== 'GET' || !reads || (gate.docKey !== undefined && reads[1] !== gate.docKey)) return undefined;
      const { reached, released } = gate;
      gate = undefined;
      reached();
      return released;
    },
  });
  const f = await createSyncFixture({ shared: em, config: { service: { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  try {
    await body({
      em,
      f,
      tick: () => em.admin.setClockOffset(++minutes * 60_000),
      holdNextRead: (docKey) => {
        let reached!: () => void;
        let release!: () => void;
        const held = { reached: new Promise<void>((resolve) => (reached = resolve)), released: new Promise<void>((resolve) => (release = resolve)) };
        gate = { docKey, reached, released: held.released };
        return { reached: held.reached, release };
      },
    });
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
}
