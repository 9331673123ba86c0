import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KeyedSerializer } from '../../../src/queue/keyed-serializer.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

void describe('KeyedSerializer.run', () => {
  void test('never runs two operations for one key at once, in any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(3)), { minLength: 1, maxLength: 25 }), async (ops) => {
        const serializer = new KeyedSerializer();
        const running = new Map<string, number>();
        const order = new Map<string, number[]>();
        await Promise.all(
          ops.map(([key, ticks], i) =>
            serializer.run(key, async () => {
              running.set(key, (running.get(key) ?? 0) + 1);
              assert.equal(running.get(key), 1, `two operations on ${key} overlapped`);
              for (let t = 0; t < ticks; t++) await tick();
              order.set(key, [...(order.get(key) ?? []), i]);
              running.set(key, (running.get(key) ?? 1) - 1);
            }),
          ),
        );
        // FIFO per key.
        for (const indices of order.values()) assert.deepEqual(indices, [...indices].sort((x, y) => x - y));
        assert.equal(serializer.size, 0);
      }),
      { numRuns: 60 },
    );
  });

  void test('different keys run concurrently', async () => {
    const serializer = new KeyedSerializer();
    const a = gate();
    let bRan = false;
    const first = serializer.run('a', () => a.promise);
    await serializer.run('b', async () => void (bRan = true));
    assert.equal(bRan, true);
    assert.equal(serializer.isBusy('a'), true);
    a.open();
    await first;
    assert.equal(serializer.isBusy('a'), false);
  });

  void test('a failure reaches its caller only and the key keeps working', async () => {
    const serializer = new KeyedSerializer();
    const failed = serializer.run('a', async () => Promise.reject(new Error('push failed')));
    const next = serializer.run('a', async () => 'ok');
    await assert.rejects(failed, /push failed/);
    assert.equal(await next, 'ok');
  });
});

void describe('KeyedSerializer.coalesce', () => {
  void test('waiting work is replaced by newer work and every caller gets the newer result', async () => {
    const serializer = new KeyedSerializer();
    const first = gate();
    const calls: string[] = [];
    const running = serializer.coalesce('doc', async () => {
      calls.push('v1');
      await first.promise;
      return 'v1';
    });
    await tick();
    const v2 = serializer.coalesce('doc', async () => (calls.push('v2'), 'v2'));
    const v3 = serializer.coalesce('doc', async () => (calls.push('v3'), 'v3'));
    first.open();
    assert.deepEqual(await Promise.all([running, v2, v3]), ['v1', 'v3', 'v3']);
    assert.deepEqual(calls, ['v1', 'v3']);
  });

  void test('coalescing never absorbs a plain run queued in between', async () => {
    const serializer = new KeyedSerializer();
    const first = gate();
    const calls: string[] = [];
    const running = serializer.run('doc', () => first.promise);
    const c1 = serializer.coalesce('doc', async () => (calls.push('c1'), 'c1'));
    const plain = serializer.run('doc', async () => (calls.push('plain'), 'plain'));
    const c2 = serializer.coalesce('doc', async () => (calls.push('c2'), 'c2'));
    first.open();
    await running;
    assert.deepEqual(await Promise.all([c1, plain, c2]), ['c1', 'plain', 'c2']);
    assert.deepEqual(calls, ['c1', 'plain', 'c2']);
  });

  void test('idle() resolves when every key is done', async () => {
    const serializer = new KeyedSerializer();
    const g = gate();
    let done = false;
    void serializer.run('x', async () => {
      await g.promise;
      done = true;
    });
    const idle = serializer.idle();
    g.open();
    await idle;
    assert.equal(done, true);
  });
});
