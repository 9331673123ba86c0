import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { call, withEmulator } from '../../helpers/emulator.js';

describe('emulator: per-endpoint rate limit', () => {
  test('a burst over the limit gets 429 without a code; one endpoint throttled leaves another free; a quiet second restores it', () =>
    withEmulator(
      async (em) => {
        const list = () => call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
        const started = Date.now();
        const burst = await Promise.all(Array.from({ length: 12 }, list));
        // The bucket refills at 5/s while the burst is in flight (slow on a loaded machine): allow exactly that.
        const refilled = Math.ceil(((Date.now() - started) * 5) / 1000);
        const statuses = burst.map((r) => r.status);
        assert.ok(statuses.filter((s) => s === 200).length <= 5 + refilled, `at most the capacity (+${refilled} refilled) passes: ${statuses.join(',')}`);
        const throttled = burst.filter((r) => r.status === 429);
        assert.ok(throttled.length >= 12 - 5 - refilled && throttled.length > 0, `the rest is throttled: ${statuses.join(',')}`);
        for (const r of throttled) {
          assert.equal(r.body.code, undefined, '429 carries no code');
          assert.equal(typeof r.body.requestid, 'string');
          assert.equal(r.headers.get('retry-after'), '1');
        }
        const other = await call(em, 'GET', `/v2.0/wiki/workspaces/${em.seed.workspaceId}`, { query: { operatorId: em.seed.operatorId } });
        assert.equal(other.status, 200, 'getWorkspace has its own budget');
        const stats = em.admin.calls();
        assert.equal(stats.byEndpoint.listWorkspaces.calls, 12, '429s are counted as calls');
        assert.equal(stats.byEndpoint.listWorkspaces.throttled, throttled.length);
        assert.equal(stats.throttled, throttled.length);
        await delay(1100);
        const recovered = await Promise.all(Array.from({ length: 5 }, list));
        assert.deepEqual(recovered.map((r) => r.status), [200, 200, 200, 200, 200]);
      },
      { rateLimit: 5 },
    ));

  test('rateLimit 0 disables limiting; admin.setRateLimit changes it at run time', () =>
    withEmulator(
      async (em) => {
        const list = () => call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
        const free = await Promise.all(Array.from({ length: 40 }, list));
        assert.ok(free.every((r) => r.status === 200));
        em.admin.setRateLimit(2);
        const limited = await Promise.all(Array.from({ length: 6 }, list));
        assert.ok(limited.some((r) => r.status === 429));
      },
      { rateLimit: 0 },
    ));
});
