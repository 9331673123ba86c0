import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import { IdleMemory } from '../../../src/daemon/idle-memory.js';

const newSpace = (): number => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

describe('IdleMemory', () => {
  test('collects once the daemon stayed idle for the delay; a cycle starting first cancels it; no heap growth, no second collection', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    // A heap past the 8 MB a collection is worth, whatever this process loaded before (a lean test
    // process may start below it), held until the end so it is no growth later.
    const held = Array.from({ length: 500_000 }, (_, i) => ({ i }));
    let collections = 0;
    const memory = new IdleMemory({ delayMs: 3000, collect: (done) => (collections++, done()) });

    memory.idle();
    t.mock.timers.tick(2999);
    memory.busy(); // the next cycle began in time
    t.mock.timers.tick(5000);
    assert.equal(collections, 0);

    memory.idle();
    t.mock.timers.tick(3000);
    assert.equal(collections, 1);

    memory.idle();
    t.mock.timers.tick(3000);
    assert.equal(collections, 1, 'the heap has not grown since: nothing to give back');

    memory.idle();
    memory.stop();
    t.mock.timers.tick(3000);
    assert.equal(collections, 1);
    assert.equal(held.length, 500_000);
  });

  test('the real collection finishes, and shrinks the young generation a burst of allocation grew', async () => {
    let garbage: { readonly n: number }[] = [];
    for (let i = 0; i < 2_000_000; i++) {
      garbage.push({ n: i });
      if (garbage.length > 50_000) garbage = [];
    }
    const grown = newSpace();
    const collected = new Promise<void>((resolve) => {
      const memory = new IdleMemory({ delayMs: 0 });
      memory.idle();
      // The collection reports back through the inspector session; poll until the young generation shrank.
      const check = setInterval(() => {
        if (newSpace() < grown) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    await collected;
    assert.ok(newSpace() < grown);
  });
});
