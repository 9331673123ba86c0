import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { registerSecret } from '../../../src/secrets.js';
import { codeOf, countRows, sampleDocument, tempLedger } from './helpers.js';

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
