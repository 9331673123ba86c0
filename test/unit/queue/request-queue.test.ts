import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestQueue } from '../../../src/queue/request-queue.js';
import { QueueClosedError } from '../../../src/queue/errors.js';
import { FakeClock } from './fake-clock.js';

type Deferred = { promise: Promise<void>; resolve(): void };
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** An operation of exactly one attempt. */
const call = <T>(queue: RequestQueue, endpoint: string, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> => queue.run(endpoint, (attempts) => attempts.send(attempt));

/** Starts `count` one-attempt calls on `endpoint` and returns the virtual start time of each. */
function startTimes(queue: RequestQueue, clock: FakeClock, endpoint: string, count: number): Promise<number[]> {
  const times: number[] = [];
  const calls = Array.from({ length: count }, () => call(queue, endpoint, async () => void times.push(clock.now())));
  return Promise.all(calls).then(() => times);
}

const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - (times[i] ?? 0));

void describe('RequestQueue pacing', () => {
  void test('paces each endpoint evenly at its rate, endpoints side by side', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 20, clock });
    const [a, b] = await Promise.all([startTimes(queue, clock, 'a', 10), startTimes(queue, clock, 'b', 10)]);
    for (const gap of [...gaps(a), ...gaps(b)]) assert.ok(gap >= 50, `gap ${gap} < 50 ms: a burst`);
    // Side by side: b did not wait for a.
    assert.equal(b[0], 0);
    assert.ok((a.at(-1) ?? 0) < 1000 && (b.at(-1) ?? 0) < 1000);
    assert.equal(queue.stats().totals.calls, 20);
  });

  void test('per-endpoint rate overrides apply', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 20, rates: { slow: 2 }, clock });
    const slow = await startTimes(queue, clock, 'slow', 3);
    assert.deepEqual(gaps(slow), [500, 500]);
  });

  void test('a throttled endpoint backs off (pause >= Retry-After, rate halved) without stalling another', async () => {
    const clock = new FakeClock();
    // One global slot: a paused endpoint that held it would stall everything.
    const queue = new RequestQueue({ rate: 20, concurrency: 1, clock });
    const events: Array<{ endpoint: string; pauseMs: number; rate: number }> = [];
    queue.on('throttle', (event) => events.push(event));
    let throttledAt = 0;
    const aTimes: number[] = [];
    const throttledOnce = queue.run('a', async (attempts) => {
      await attempts.send(async () => (throttledAt = clock.now()));
      attempts.throttled(5000);
      attempts.retrying();
      await attempts.send(async () => aTimes.push(clock.now()));
    });
    const bTimes = await startTimes(queue, clock, 'b', 10);
    await throttledOnce;
    assert.ok((aTimes[0] ?? 0) - throttledAt >= 5000, 'the retry waited for Retry-After');
    assert.ok((bTimes.at(-1) ?? Infinity) < 1000, `b finished at ${String(bTimes.at(-1))}: it was stalled by a`);
    assert.deepEqual(events, [{ endpoint: 'a', pauseMs: 5000, rate: 10 }]);
    const stats = queue.stats().endpoints['a'];
    assert.deepEqual({ ...stats, rate: undefined }, { calls: 2, throttled: 1, retries: 1, failures: 0, rate: undefined });
  });

  void test('a throttle pauses at least the minimum pause and the rate floor holds', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 4, minRate: 1, clock });
    const pauses: number[] = [];
    await queue.run('a', async (attempts) => {
      for (let i = 0; i < 5; i++) {
        await attempts.send(async () => undefined);
        pauses.push(attempts.throttled(i === 0 ? 0 : 200));
      }
    });
    assert.deepEqual(pauses, [1000, 1000, 1000, 1000, 1000]);
    assert.equal(queue.stats().endpoints['a']?.rate, 1);
  });

  void test('after a quiet period the rate climbs back up to the configured rate', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 20, quietMs: 2000, clock });
    await queue.run('a', async (attempts) => {
      await attempts.send(async () => undefined);
      attempts.throttled();
    });
    assert.equal(queue.stats().endpoints['a']?.rate, 10);
    const rates: number[] = [];
    for (let i = 0; i < 12; i++) {
      await clock.sleep(2000);
      await call(queue, 'a', async () => undefined);
      rates.push(queue.stats().endpoints['a']?.rate ?? 0);
    }
    assert.ok(rates.every((rate, i) => i === 0 || rate >= (rates[i - 1] ?? 0)), `not monotonic: ${rates.join()}`);
    assert.equal(rates.at(-1), 20);
  });
});

void describe('RequestQueue concurrency', () => {
  void test('never more calls in flight than the concurrency bound', async () => {
    const queue = new RequestQueue({ rate: 0, concurrency: 3 });
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(queue, `e${i % 4}`, async () => {
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 2));
          running--;
        }),
      ),
    );
    assert.equal(peak, 3);
  });

  void test('counts calls, retries and failures exactly', async () => {
    const queue = new RequestQueue({ rate: 0 });
    await queue.run('a', async (attempts) => {
      await attempts.send(async () => undefined);
      attempts.retrying();
      await attempts.send(async () => undefined);
    });
    await assert.rejects(call(queue, 'a', async () => Promise.reject(new Error('boom'))), /boom/);
    await call(queue, 'b', async () => undefined);
    const stats = queue.stats();
    assert.deepEqual(stats.totals, { calls: 4, throttled: 0, retries: 1, failures: 1 });
    assert.deepEqual(stats.endpoints['a'], { calls: 3, throttled: 0, retries: 1, failures: 1, rate: 0 });
    assert.equal(stats.inFlight, 0);
    assert.equal(stats.queued, 0);
  });
});

void describe('RequestQueue drain', () => {
  void test('finishes accepted work (retries included) and refuses new operations', async () => {
    const queue = new RequestQueue({ rate: 0 });
    const gate = deferred();
    let attemptsSent = 0;
    const accepted = queue.run('a', async (attempts) => {
      await attempts.send(() => gate.promise);
      attemptsSent++;
      attempts.retrying();
      await attempts.send(async () => void attemptsSent++);
      return 'done';
    });
    const draining = queue.drain();
    await assert.rejects(call(queue, 'a', async () => 'late'), QueueClosedError);
    gate.resolve();
    assert.equal(await accepted, 'done');
    assert.equal(attemptsSent, 2);
    assert.deepEqual(await draining, { drained: true, inFlight: 0, operations: 0 });
  });

  void test('with a deadline, work not started is refused and running calls are reported', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 0, concurrency: 1, clock });
    const gate = deferred();
    const running = call(queue, 'a', () => gate.promise);
    const waiting = call(queue, 'b', async () => 'never');
    const result = await queue.drain({ deadlineMs: 100 });
    assert.deepEqual(result, { drained: false, inFlight: 1, operations: 2 });
    await assert.rejects(waiting, QueueClosedError);
    gate.resolve();
    await running;
    assert.equal(queue.stats().totals.calls, 1);
  });

  void test('drain of an idle queue resolves at once', async () => {
    const queue = new RequestQueue();
    assert.deepEqual(await queue.drain({ deadlineMs: 10_000 }), { drained: true, inFlight: 0, operations: 0 });
  });
});

void describe('RequestQueue close', () => {
  void test('ends every wait at once, refuses what was not sent, and tells attempts in flight to abort', async () => {
    const clock = new FakeClock();
    const queue = new RequestQueue({ rate: 20, concurrency: 2, clock });
    let inFlightSignal: AbortSignal | undefined;
    const gate = deferred();
    // In flight until the gate opens.
    const running = call(queue, 'a', (signal) => ((inFlightSignal = signal), gate.promise));
    // Throttled for a minute, then waiting for its turn again.
    const throttled = queue.run('b', async (attempts) => {
      await attempts.send(async () => undefined);
      attempts.throttled(60_000);
      attempts.retrying();
      return attempts.send(async () => 'sent after all');
    });
    // Queued behind it on the same endpoint.
    const queued = call(queue, 'b', async () => 'sent after all');
    while (queue.stats().endpoints['b']?.throttled !== 1) await new Promise((resolve) => setImmediate(resolve));
    queue.close();
    await assert.rejects(throttled, QueueClosedError);
    await assert.rejects(queued, QueueClosedError);
    assert.equal(inFlightSignal?.aborted, true, 'the attempt in flight was told to abort');
    assert.ok(clock.now() < 60_000, `the minute's pause was not waited out (${clock.now()} ms)`);
    await assert.rejects(call(queue, 'd', async () => 'late'), QueueClosedError);
    gate.resolve();
    await running;
    assert.equal(queue.stats().endpoints['b']?.calls, 1, 'only the throttled attempt was sent');
  });
});
