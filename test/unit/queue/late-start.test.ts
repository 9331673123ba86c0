import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointLimiter } from '../../../src/queue/limiter.js';
import { RequestQueue } from '../../../src/queue/request-queue.js';
import { FakeClock } from './fake-clock.js';

const limiter = (): EndpointLimiter => new EndpointLimiter({ rate: 20, minRate: 1, minPauseMs: 1000, quietMs: 2000 });

void describe('pacing keeps its schedule when a start comes late', () => {
  void test('a late start keeps its slot: the next call is due one interval after the slot', () => {
    const pacing = limiter();
    pacing.started(0);
    assert.equal(pacing.nextStartAt(), 50);
    pacing.started(57, 50); // due at 50, started 7 ms late
    assert.equal(pacing.nextStartAt(), 100);
  });

  void test('the catch-up is bounded by one interval, and a call that did not wait gets none', () => {
    const pacing = limiter();
    pacing.started(0);
    pacing.started(400, 50); // very late: at most one call may follow at once
    assert.equal(pacing.nextStartAt(), 400);
    pacing.started(400, 400);
    assert.equal(pacing.nextStartAt(), 450);
    pacing.started(2000); // after an idle spell: no credit, so no burst
    assert.equal(pacing.nextStartAt(), 2050);
  });

  void test('a call held back by a busy global slot does not slow the endpoint down', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 20, concurrency: 1, clock });
    const times: number[] = [];
    const a = Promise.all(Array.from({ length: 4 }, () => queue.run('a', (attempts) => attempts.send(async () => void times.push(clock.now())))));
    // Another endpoint's slow call holds the only global slot from 45 to 75 ms, when a's second call is due.
    const b = (async () => {
      await clock.sleep(45);
      await queue.run('b', (attempts) => attempts.send(() => clock.sleep(30)));
    })();
    await Promise.all([a, b]);
    assert.deepEqual(times, [0, 75, 100, 150]);
  });
});
