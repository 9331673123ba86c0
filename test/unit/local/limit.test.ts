import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { createLimit, runPool } from '../../../src/local/limit.js';

test('createLimit never runs more than its width at once, runs everything, and passes errors through', async () => {
  const limit = createLimit(3);
  let active = 0;
  let peak = 0;
  const task = (fail: boolean) => async (): Promise<number> => {
    active += 1;
    peak = Math.max(peak, active);
    await tick();
    active -= 1;
    if (fail) throw new Error('boom');
    return 1;
  };
  const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => limit(task(i % 10 === 0))));
  assert.equal(peak, 3);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 45);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 5);
  // After failures the slots are free again.
  assert.equal(await limit(task(false)), 1);
});

test('runPool runs every task with at most `width` in flight', async () => {
  let active = 0;
  let peak = 0;
  const done: number[] = [];
  const tasks = Array.from({ length: 20 }, (_, i) => async () => {
    active += 1;
    peak = Math.max(peak, active);
    await tick();
    active -= 1;
    done.push(i);
  });
  await runPool(tasks, 4);
  assert.equal(peak, 4);
  assert.deepEqual(done.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
  await runPool([], 4);
});

test('createLimit starts queued tasks in the order they were queued, even with thousands waiting', async () => {
  const limit = createLimit(2);
  const started: number[] = [];
  await Promise.all(
    Array.from({ length: 5000 }, (_, i) =>
      limit(async () => {
        started.push(i);
        await tick();
      }),
    ),
  );
  assert.deepEqual(started, Array.from({ length: 5000 }, (_, i) => i));
});
