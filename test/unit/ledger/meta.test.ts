import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeOf, tempLedger } from './helpers.js';

describe('ledger meta', () => {
  test('set and get round-trip JSON values; missing keys are undefined; delete forgets', (t) => {
    const ledger = tempLedger(t);
    const values = { workspaceId: 'ws-1', rootNode: { id: 'tree-root', title: 'KB' }, lastFullSweep: 1_714_558_860_000, flag: false, none: null };
    for (const [key, value] of Object.entries(values)) ledger.meta.set(key, value);
    for (const [key, value] of Object.entries(values)) assert.deepEqual(ledger.meta.get(key), value, key);
    ledger.meta.set('workspaceId', 'ws-2');
    assert.equal(ledger.meta.get('workspaceId'), 'ws-2');
    assert.equal(ledger.meta.get('missing'), undefined);
    assert.equal(ledger.meta.delete('flag'), true);
    assert.equal(ledger.meta.get('flag'), undefined);
    assert.ok(ledger.meta.entries().some(([key]) => key === 'ledger.createdAt'), 'schema info is kept in meta');
  });

  test('increment counts from zero, by any step, and returns the total', (t) => {
    const ledger = tempLedger(t);
    assert.equal(ledger.meta.increment('calls.2024-05'), 1);
    assert.equal(ledger.meta.increment('calls.2024-05', 41), 42);
    assert.equal(ledger.meta.get('calls.2024-05'), 42);
    ledger.meta.set('text', 'not a number');
    assert.equal(ledger.meta.increment('text', 3), 3);
    assert.equal(codeOf(() => ledger.meta.increment('x', Number.NaN)), 'LEDGER_INVALID_RECORD');
    assert.equal(codeOf(() => ledger.meta.set('', 1)), 'LEDGER_INVALID_RECORD');
  });
});
