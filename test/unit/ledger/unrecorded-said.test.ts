import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { LEDGER_SCHEMA_VERSION, openLedger } from '../../../src/ledger/index.js';
import { tempDir, tempLedger } from './helpers.js';

describe('what kbsync watch said of the holds nothing else records (unrecorded_said)', () => {
  test('is kept by path, with or without a document row: read back, replaced, forgotten', (t) => {
    const ledger = tempLedger(t);
    assert.deepEqual(ledger.unrecordedSaid.all(), new Map());
    ledger.unrecordedSaid.record('new.md', 'a');
    ledger.unrecordedSaid.record('ops/run.md', 'b');
    ledger.unrecordedSaid.record('new.md', 'c');
    assert.deepEqual(ledger.unrecordedSaid.all(), new Map([['new.md', 'c'], ['ops/run.md', 'b']]));
    ledger.unrecordedSaid.record('new.md', undefined);
    assert.deepEqual(ledger.unrecordedSaid.all(), new Map([['ops/run.md', 'b']]));
  });

  test('does not drop the settled-tree fingerprint: no plan reads it', (t) => {
    const ledger = tempLedger(t);
    ledger.settledTree.record('fingerprint');
    ledger.unrecordedSaid.record('new.md', 'a');
    assert.equal(ledger.settledTree.get(), 'fingerprint');
  });

  test('a ledger from before it opens with nothing said, and keeps what is said from then on', (t) => {
    const path = join(tempDir(t), 'ledger.sqlite');
    openLedger(path).close();
    const db = new Database(path);
    db.exec('DROP TABLE unrecorded_said');
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION - 1}`);
    db.close();

    const reopened = openLedger(path);
    t.after(() => reopened.close());
    assert.deepEqual(reopened.unrecordedSaid.all(), new Map());
    reopened.unrecordedSaid.record('new.md', 'a');
    assert.deepEqual(reopened.unrecordedSaid.all(), new Map([['new.md', 'a']]));
  });
});
