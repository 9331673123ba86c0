import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { LEDGER_SCHEMA_VERSION, openLedger } from '../../../src/ledger/index.js';
import { sampleDocument, tempDir, tempLedger } from './helpers.js';

const [ONE, TWO] = [sampleDocument(1), sampleDocument(2)];
const keys = (...said: string[]): Set<string> => new Set(said);

describe('what kbsync watch said of a file (notices_said)', () => {
  test('is kept by the file’s document row: read back, replaced, forgotten when nothing stands', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(ONE);
    assert.deepEqual(ledger.noticesSaid.of(ONE.path), keys());
    assert.equal(ledger.noticesSaid.record(ONE.path, keys('b', 'a')), true);
    assert.deepEqual(ledger.noticesSaid.of(ONE.path), keys('a', 'b'));
    ledger.noticesSaid.record(ONE.path, keys('c'));
    assert.deepEqual(ledger.noticesSaid.of(ONE.path), keys('c'));
    ledger.noticesSaid.record(ONE.path, keys());
    assert.deepEqual(ledger.noticesSaid.of(ONE.path), keys());
  });

  test('a path with no document row keeps nothing, and says so', (t) => {
    const ledger = tempLedger(t);
    assert.equal(ledger.noticesSaid.record('notes/new.md', keys('a')), false);
    assert.deepEqual(ledger.noticesSaid.of('notes/new.md'), keys());
  });

  test('follows its document’s rename, and goes with its row (a file deleted starts with nothing said)', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(ONE);
    ledger.documents.upsert(TWO);
    ledger.noticesSaid.record(ONE.path, keys('a'));
    ledger.noticesSaid.record(TWO.path, keys('b'));
    ledger.documents.rename(ONE.path, 'notes/moved.md');
    assert.deepEqual(ledger.noticesSaid.of('notes/moved.md'), keys('a'));
    assert.deepEqual(ledger.noticesSaid.of(ONE.path), keys());
    ledger.documents.remove(TWO.path);
    ledger.documents.upsert(TWO);
    assert.deepEqual(ledger.noticesSaid.of(TWO.path), keys(), 'the same path paired again: nothing said yet');
  });

  test('does not drop the settled-tree fingerprint: no plan reads it', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(ONE);
    ledger.settledTree.record('fingerprint');
    ledger.noticesSaid.record(ONE.path, keys('a'));
    assert.equal(ledger.settledTree.get(), 'fingerprint');
  });

  test('a ledger from before it opens, keeps its documents, and keeps what is said from then on', (t) => {
    const path = join(tempDir(t), 'ledger.sqlite');
    const ledger = openLedger(path);
    ledger.documents.upsert(ONE);
    ledger.close();
    // As the ledger of the kbsync before it (and so before `read_plainly` and `unrecorded_said`, the schemas after it).
    const db = new Database(path);
    db.exec('DROP TABLE notices_said; ALTER TABLE documents DROP COLUMN read_plainly; DROP TABLE unrecorded_said');
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION - 3}`);
    db.close();

    const reopened = openLedger(path);
    t.after(() => reopened.close());
    assert.deepEqual(reopened.documents.allSummaries().map((row) => row.path), [ONE.path]);
    assert.deepEqual(reopened.noticesSaid.of(ONE.path), keys(), 'nothing said before it was kept');
    assert.equal(reopened.noticesSaid.record(ONE.path, keys('a')), true);
    assert.deepEqual(reopened.noticesSaid.of(ONE.path), keys('a'));
  });
});
