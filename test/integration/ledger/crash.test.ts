import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openLedger, readLockHolder } from '../../../src/ledger/index.js';
import { exited, spawnUntil, tempDir } from '../../unit/ledger/helpers.js';

const crashChild = fileURLToPath(new URL('./fixtures/crash-child.ts', import.meta.url));

describe('ledger after a SIGKILL', () => {
  test('an intent begun before the kill is still open after reopening, with its payload', async (t) => {
    const path = join(tempDir(t), '.kbsync', 'ledger.db');
    const { child, output } = await spawnUntil(t, crashChild, [path, 'intent'], 'intent');
    const id = Number(/intent (\d+)/.exec(output)?.[1]);
    child.kill('SIGKILL');
    await exited(child);
    assert.equal(readLockHolder(path)?.alive, false);

    const ledger = openLedger(path);
    t.after(() => ledger.close());
    const open = ledger.intents.open();
    assert.equal(open.length, 1);
    assert.deepEqual(
      { ...open[0], createdAt: 0 },
      { id, kind: 'create', subject: 'notes/new.md', payload: { title: 'New note', parent: 'tree-root', attempt: 1 }, createdAt: 0, pid: child.pid },
    );
    // Reconciling it then works as usual.
    ledger.intents.abandon(open[0]!.id, 'reconciled: the document was not created');
    assert.deepEqual(ledger.intents.open(), []);
  });

  test('a transaction killed half-way leaves none of its rows, and what was committed before stays', async (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const { child } = await spawnUntil(t, crashChild, [path, 'transaction'], 'mid-transaction');
    assert.ok(statSync(`${path}-wal`).size > 1_000_000, 'uncommitted pages reached the WAL: the kill really lands mid-write');
    child.kill('SIGKILL');
    await exited(child);

    const ledger = openLedger(path);
    t.after(() => ledger.close());
    assert.deepEqual(ledger.documents.allSummaries().map((d) => d.path), ['committed.md']);
    assert.equal(ledger.documents.get('committed.md')?.docKey, 'dockey-0');
  });
});
