import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MIN_PROBE_MS, MIN_SWEEP_MS, planPolling, type PollingInput } from '../../../src/daemon/polling-policy.js';

const base: PollingInput = { budgetPerHour: 600, listingCalls: 1, expectedChecks: 0, hotDocs: 0, fullSweepMinutes: 60 };

describe('planPolling: the remote polling budget', () => {
  test('a small tree is swept every 30 s, never more often', () => {
    assert.deepEqual(planPolling(base), { sweepEveryMs: MIN_SWEEP_MS, probeEveryMs: null, callsPerHour: 120 });
  });

  test('20 folder pages and 5 hot documents: sweeps every 4 min, probes every minute, 600 calls an hour', () => {
    const plan = planPolling({ ...base, listingCalls: 20, hotDocs: 5 });
    assert.equal(plan.sweepEveryMs, 240_000);
    assert.equal(plan.probeEveryMs, 60_000);
    assert.equal(plan.callsPerHour, 600);
  });

  test('documents still to re-check count in the cost of a sweep', () => {
    assert.equal(planPolling({ ...base, listingCalls: 20, expectedChecks: 10 }).sweepEveryMs, 180_000);
  });

  test('fullSweepMinutes bounds the interval even past the budget, and below 30 s too', () => {
    assert.equal(planPolling({ ...base, listingCalls: 900 }).sweepEveryMs, 3_600_000);
    assert.equal(planPolling({ ...base, fullSweepMinutes: 0.02 }).sweepEveryMs, 1200);
  });

  test('probes that would not come before the next sweep are skipped', () => {
    assert.equal(planPolling({ ...base, hotDocs: 30 }).probeEveryMs, null);
  });

  test('a budget of 0 turns remote polling off', () => {
    assert.deepEqual(planPolling({ ...base, budgetPerHour: 0, hotDocs: 3 }), { sweepEveryMs: null, probeEveryMs: null, callsPerHour: 0 });
  });

  test('for any tree, sweeps stay within [30 s, fullSweepMinutes] and spend within the budget unless fullSweepMinutes forces more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0.5, max: 600, noNaN: true }),
        (budgetPerHour, listingCalls, expectedChecks, hotDocs, fullSweepMinutes) => {
          const plan = planPolling({ budgetPerHour, listingCalls, expectedChecks, hotDocs, fullSweepMinutes });
          assert.ok(plan.sweepEveryMs !== null);
          assert.ok(plan.sweepEveryMs >= MIN_SWEEP_MS - 1e-6 && plan.sweepEveryMs <= fullSweepMinutes * 60_000 + 1e-6);
          if (plan.probeEveryMs !== null) {
            assert.ok(hotDocs > 0);
            assert.ok(plan.probeEveryMs >= MIN_PROBE_MS && plan.probeEveryMs < plan.sweepEveryMs);
          }
          const forced = plan.sweepEveryMs === fullSweepMinutes * 60_000;
          if (!forced) assert.ok(plan.callsPerHour <= budgetPerHour + 1e-6, JSON.stringify(plan));
        },
      ),
    );
  });
});
