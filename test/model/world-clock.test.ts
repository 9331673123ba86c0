import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openLedger } from '../../src/ledger/index.js';
import { World, type Machine } from './world.js';

/** When the machine's ledger says it agreed with the document at `path` (its record's stamp on the service's clock). */
function agreedAt(m: Machine, path: string): number | undefined {
  const ledger = openLedger(join(m.root, '.kbsync', 'ledger.sqlite'), { readonly: true, lock: false });
  try {
    return ledger.documents.get(path)?.agreedAt;
  } finally {
    ledger.close();
  }
}

// Seed 100106 passed or failed by load: the service's clock stood still while kbsync counted the real seconds since
// its last answer, so a machine's forced write, decided quickly, was stamped before its own slower record of a
// moment earlier, and never published. A world's machines read the service's clock: its minutes, and no others.
test("model: a machine's records are stamped on the service's clock, however slowly the machine runs", async (t) => {
  // Every reading of the real clock finds another second gone: a machine as busy as can be.
  let wall = Date.now();
  t.mock.method(Date, 'now', () => (wall += 1000));
  const world = await World.create(1, 1);
  try {
    const [a] = world.machines;
    assert.ok(a);
    const stampedNow = (): void => {
      const lag = (agreedAt(a, 'note.md') ?? Number.NaN) - world.em.admin.now();
      assert.ok(lag >= 0 && lag < 1000, `stamped ${lag} ms from the service's clock, not within its second`);
    };
    await a.write('note.md', '# Note\n\nFirst.\n');
    assert.equal((await a.sync()).error, undefined);
    stampedNow();
    world.tick(1);
    await a.write('note.md', '# Note\n\nSecond.\n');
    assert.equal((await a.sync()).error, undefined);
    stampedNow();
  } finally {
    await world.close();
  }
});
