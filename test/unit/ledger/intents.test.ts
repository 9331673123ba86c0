import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { IntentsJournal } from '../../../src/ledger/intents.js';
import { migrate } from '../../../src/ledger/migrations.js';
import { Statements } from '../../../src/sqlite-statements.js';
import { silentLogger } from '../../../src/log.js';
import { registerSecret } from '../../../src/secrets.js';
import { codeOf, countRows, sampleDocument, tempDir, tempLedger } from './helpers.js';

describe('ledger intents journal', () => {
  test('begin commits an open intent with kind, subject, payload, time and pid; open() lists oldest first', (t) => {
    const ledger = tempLedger(t);
    const before = Date.now();
    const first = ledger.intents.begin('create', 'notes/a.md', { title: 'A', parent: 'tree-root', nested: [1, null, true] });
    const second = ledger.intents.begin('delete', 'dockey-9', null);
    const open = ledger.intents.open();
    assert.deepEqual(
      open.map(({ createdAt: _c, ...rest }) => rest),
      [
        { id: first, kind: 'create', subject: 'notes/a.md', payload: { title: 'A', parent: 'tree-root', nested: [1, null, true] }, pid: process.pid },
        { id: second, kind: 'delete', subject: 'dockey-9', payload: null, pid: process.pid },
      ],
    );
    assert.ok(open.every((intent) => intent.createdAt >= before && intent.createdAt <= Date.now()));
    assert.deepEqual(ledger.intents.get(first), open[0]);
  });

  test('beginDurably commits the intent before it resolves: another connection sees it open', async (t) => {
    const ledger = tempLedger(t);
    const id = await ledger.intents.beginDurably('create', 'notes/a.md', { title: 'A' });
    const other = new Database(ledger.path, { readonly: true });
    t.after(() => other.close());
    assert.deepEqual(other.prepare(`SELECT id, kind, subject, state FROM intents`).all(), [{ id, kind: 'create', subject: 'notes/a.md', state: 'open' }]);
    assert.deepEqual(ledger.intents.open().map((intent) => intent.id), [id]);
  });

  test('amend replaces an open intent\'s payload (what its effect learnt part-way); a closed one keeps its own', (t) => {
    const ledger = tempLedger(t);
    const open = ledger.intents.begin('sync', 'notes/a.md', { sent: 'A' });
    const closed = ledger.intents.begin('sync', 'notes/b.md', { sent: 'B' });
    ledger.intents.abandon(closed, 'failed');
    ledger.intents.amend(open, { sent: 'A', written: '2026-11-02T09:04Z' });
    ledger.intents.amend(closed, { sent: 'B', written: '2026-11-02T09:04Z' });
    assert.deepEqual(ledger.intents.open().map((intent) => intent.payload), [{ sent: 'A', written: '2026-11-02T09:04Z' }]);
    assert.deepEqual(ledger.intents.unfinished('sync').find((intent) => intent.id === closed)?.payload, { sent: 'B' });
  });

  test('complete records the result and closes the intent in one transaction', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1);
    const id = ledger.intents.begin('create', doc.path, { title: doc.remoteTitle });
    ledger.intents.complete(id, () => ledger.documents.upsert(doc));
    assert.deepEqual(ledger.intents.open(), []);
    assert.deepEqual(ledger.documents.get(doc.path), doc);
    assert.equal(countRows(ledger.path, 'intents'), 0, 'completed intents do not pile up');
  });

  test('when the record step throws, nothing it wrote stays and the intent stays open', (t) => {
    const ledger = tempLedger(t);
    const id = ledger.intents.begin('create', 'notes/doc-1.md', {});
    assert.throws(() =>
      ledger.intents.complete(id, () => {
        ledger.documents.upsert(sampleDocument(1));
        throw new Error('result could not be parsed');
      }),
    /result could not be parsed/);
    assert.equal(ledger.documents.count(), 0);
    assert.deepEqual(ledger.intents.open().map((intent) => intent.id), [id]);
  });

  test('abandon closes with a reason; closing twice or an unknown id is refused', (t) => {
    const ledger = tempLedger(t);
    const id = ledger.intents.begin('overwrite', 'dockey-1', { hash: 'x' });
    ledger.intents.abandon(id, 'remote changed meanwhile');
    assert.deepEqual(ledger.intents.open(), []);
    assert.equal(codeOf(() => ledger.intents.abandon(id, 'again')), 'LEDGER_INTENT_NOT_OPEN');
    assert.equal(codeOf(() => ledger.intents.complete(id, () => {})), 'LEDGER_INTENT_NOT_OPEN');
    const recordRan: string[] = [];
    assert.equal(codeOf(() => ledger.intents.complete(id, () => recordRan.push('ran'))), 'LEDGER_INTENT_NOT_OPEN');
    assert.deepEqual(recordRan, [], 'the result of a closed intent is not recorded twice');
  });

  test('begin inside a transaction is refused: a rollback would erase an intent whose effect happened', (t) => {
    const ledger = tempLedger(t);
    assert.equal(codeOf(() => ledger.transaction(() => ledger.intents.begin('create', 'a.md', {}))), 'LEDGER_INTENT_IN_TRANSACTION');
    assert.deepEqual(ledger.intents.open(), []);
  });

  test('payloads must be JSON, and a registered secret never reaches the journal', (t) => {
    const ledger = tempLedger(t);
    assert.equal(codeOf(() => ledger.intents.begin('create', 'a.md', undefined as never)), 'LEDGER_INVALID_RECORD');
    assert.equal(codeOf(() => ledger.intents.begin('', 'a.md', {})), 'LEDGER_INVALID_RECORD');
    const secret = 'tok-ledger-test-0123456789';
    registerSecret(secret);
    ledger.intents.begin('create', 'a.md', { header: `Bearer ${secret}` });
    assert.equal(JSON.stringify(ledger.intents.open()).includes(secret), false);
  });
});

describe('ledger intents journal: syncs', () => {
  const journalOn = (t: TestContext, journalMode: 'wal' | 'delete'): { db: Database.Database; intents: IntentsJournal } => {
    const db = new Database(join(tempDir(t), 'ledger.sqlite'));
    t.after(() => db.close());
    db.pragma(`journal_mode = ${journalMode}`);
    db.pragma('synchronous = FULL');
    migrate(db);
    return { db, intents: new IntentsJournal(db, new Statements(db), silentLogger) };
  };
  const FULL = 2;
  const NORMAL = 1;

  test('in WAL mode a begin commits with a full sync, a complete without one (the next begin syncs it), and FULL comes back after', (t) => {
    const { db, intents } = journalOn(t, 'wal');
    const id = intents.begin('create', 'a.md', null);
    assert.equal(db.pragma('synchronous', { simple: true }), FULL);
    let during: unknown;
    intents.complete(id, () => (during = db.pragma('synchronous', { simple: true })));
    assert.equal(during, NORMAL);
    assert.equal(db.pragma('synchronous', { simple: true }), FULL);
    const failing = intents.begin('create', 'b.md', null);
    assert.throws(() => intents.complete(failing, () => assert.fail('record failed')));
    assert.equal(db.pragma('synchronous', { simple: true }), FULL, 'a failed record puts FULL back too');
  });

  test('without WAL every commit keeps the full sync', (t) => {
    const { db, intents } = journalOn(t, 'delete');
    const id = intents.begin('create', 'a.md', null);
    let during: unknown;
    intents.complete(id, () => (during = db.pragma('synchronous', { simple: true })));
    assert.equal(during, FULL);
  });
});
