import assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { gateProxy, onceAt, type GateHooks, type Passing } from './gate-proxy.js';
import { createSyncFixture, type SyncFixture } from './sync-fixture.js';

/**
 * Two workstations on one workspace of one emulator (no rate limit); `keyless`: a team without a state key.
 * `fn` gets the service and both; everything is closed after, whatever happens.
 */
export async function withWorkstationPair(keyless: boolean, fn: (em: RunningEmulator, a: SyncFixture, b: SyncFixture) => Promise<void>): Promise<void> {
  await withGatedPair(keyless, {}, (em, a, b) => fn(em, a, b), false);
}

/**
 * As withWorkstationPair, with the second machine (`gated`) reaching the service through a gate proxy whose hooks
 * hold its calls (test/helpers/gate-proxy.ts): a test forces one machine's call between two of the other's.
 */
export async function withGatedPair(
  keyless: boolean,
  hooks: GateHooks,
  fn: (em: RunningEmulator, open: SyncFixture, gated: SyncFixture) => Promise<void>,
  gated = true,
): Promise<void> {
  await withBothGated(keyless, [undefined, gated ? hooks : undefined], fn);
}

/**
 * As withGatedPair, each machine through its own gate proxy where `hooks` gives one: a test holds one machine's
 * call until the other's run reaches a call of its own, and holds that one in turn.
 */
export async function withBothGated(
  keyless: boolean,
  hooks: readonly [GateHooks | undefined, GateHooks | undefined],
  fn: (em: RunningEmulator, first: SyncFixture, second: SyncFixture) => Promise<void>,
): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const gates = await Promise.all(hooks.map((h) => (h ? gateProxy(em.seed.baseUrl, h) : undefined)));
  const env = keyless ? { env: { KBSYNC_STATE_KEY: '' } } : {};
  const through = (gate: (typeof gates)[number]) => (gate ? { config: { service: { baseUrl: gate.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } } : {});
  const first = await createSyncFixture({ shared: em, ...env, ...through(gates[0]) });
  const second = await createSyncFixture({ shared: em, ...env, ...through(gates[1]) });
  try {
    await fn(em, first, second);
  } finally {
    await first.close();
    await second.close();
    for (const gate of gates) await gate?.close();
    await em.close();
  }
}

/**
 * `kbsync sync --json` on one machine a minute after the last (the service's clock moves on, as between real
 * runs), from `from` minutes past the pair's epoch; `tick` moves the clock alone (a write landing later).
 */
export function minuteByMinute(em: RunningEmulator, from = 2): { readonly sync: (f: SyncFixture) => Promise<SyncReport>; readonly tick: () => void } {
  let minutes = from;
  const tick = () => em.admin.setClockOffset(++minutes * 60_000);
  return {
    tick,
    sync: (f) => {
      tick();
      return reported(f);
    },
  };
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

/** Every code a run's results say: a hold's reason, or the notice a detail opens with (`HIDDEN_EDIT: …`). */
export const saidIn = (report: SyncReport): string[] =>
  report.results.flatMap((r) => (r.ok ? [r.reason ?? r.detail?.match(/^[A-Z_]+(?=:)/)?.[0] ?? ''] : [r.code])).filter((code) => code !== '');

/** A gated pair with a step armed at one request of the gated machine's, both holding a page, the clock moved by hand. */
export type ArmedPair = {
  readonly em: RunningEmulator;
  readonly a: SyncFixture;
  readonly b: SyncFixture;
  readonly gate: ReturnType<typeof onceAt>;
  readonly sync: (f: SyncFixture) => Promise<SyncReport>;
  readonly tick: () => void;
};

/**
 * withGatedPair with onceAt's gate on `b`'s first request `at` matches (armed by the test), both machines holding
 * `other.md` (publishedOnBoth), and the clock moved minute by minute (minuteByMinute).
 */
export async function withArmedPair(keyless: boolean, at: (request: Passing) => boolean, fn: (pair: ArmedPair) => Promise<void>): Promise<void> {
  const gate = onceAt(at);
  await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
    const clock = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'other.md': '# Other\n\nA page both have.\n' });
    await fn({ em, a, b, gate, ...clock });
  });
}

/**
 * B makes guide.md (plain prose), its body write landing three minutes after the create announced it, and is killed
 * before its record of that body (soak seed 705's order). The pair must be armed at B's `/overwriteContent`.
 */
export async function firstBodyLandedLate({ b, gate, tick }: ArmedPair): Promise<void> {
  await b.write('guide.md', '# Guide\n\nA new page of plain prose.\n\nIts second paragraph.\n');
  gate.arm(async () => {
    tick();
    tick();
    tick();
  });
  tick();
  assert.notEqual((await b.sync([], { KBSYNC_CRASH_AT: 'after-overwrite' })).code, 0, 'B is killed after the body write, before its record');
  assert.ok(gate.fired);
}

/**
 * A writes `text` to `path`; the write lands and A is killed before its record. B's run then reads the shared state
 * before that record comes, and the page after A's next run has published it (`gate` armed at B's read of the page).
 */
export async function readBeforeRecord(
  { a, b, gate, sync, tick }: Pick<ArmedPair, 'a' | 'b' | 'gate' | 'sync' | 'tick'>,
  path: string,
  text: string,
): Promise<void> {
  await a.write(path, text);
  tick();
  assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).code, 0, 'A is killed between its write and its record');
  gate.arm(async () => {
    await sync(a);
    tick();
  });
  await sync(b);
  assert.ok(gate.fired, "B read the page after A's write and record");
}
