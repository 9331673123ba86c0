import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asDocKey, asTreeNodeId } from '../../../src/model/ids.js';
import type { DocumentRecord } from '../../../src/ledger/index.js';
import { SUMMARY_COLUMNS, decodeRawSummary } from '../../../src/ledger/document-columns.js';
import { codeOf, countRows, sampleDocument, tempLedger } from './helpers.js';

const summaryOf = ({ baseMarkdown: _b, remoteBlocks: _r, alignment: _a, members: _m, conflictBase: _c, publishedOver: _p, hiddenEdit: _h, lossyBase: _l, formattingOnly: _f, hiddenBase: _hb, agreedAt: _w, replacedHead: _rh, builtOn: _bo, ...summary }: DocumentRecord) => summary;

describe('ledger documents', () => {
  test('upsert then get returns every field unchanged, blocks and alignment parsed back', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1, { nodeId: null, origin: 'linked', heldCode: 'NOT_CREATED', heldLocalHash: '', heldRemoteTime: '2024-05-01 10:20', recheck: true, conflict: true, conflictPath: 'notes/doc-1.conflict-2024.md' });
    ledger.documents.upsert(doc);
    assert.deepEqual(ledger.documents.get(doc.path), doc);
    assert.deepEqual(ledger.documents.byDocKey(doc.docKey), doc);
    assert.deepEqual(ledger.documents.byTreeNodeId(doc.treeNodeId), doc);
    assert.deepEqual(ledger.documents.summary(doc.path), summaryOf(doc));
    assert.equal(ledger.documents.get('notes/other.md'), undefined);
    assert.equal(ledger.documents.byDocKey(asDocKey('nope')), undefined);
  });

  test('allSummaries() lists every summary, allRecords() every full record, sorted by path; count() counts them', (t) => {
    const ledger = tempLedger(t);
    const docs = [3, 1, 2].map((n) => sampleDocument(n));
    for (const doc of docs) ledger.documents.upsert(doc);
    const sorted = [...docs].sort((a, b) => a.path.localeCompare(b.path));
    assert.deepEqual(ledger.documents.allRecords(), sorted);
    assert.deepEqual(ledger.documents.allSummaries(), sorted.map(summaryOf));
    assert.equal(ledger.documents.count(), 3);
  });

  test('a raw summary row decodes each column into its own field (the literal decoder keeps step with SUMMARY_COLUMNS)', () => {
    const decoded = decodeRawSummary(SUMMARY_COLUMNS.map((c, i) => (c.kind === 'flag' ? (i % 2) : `value-${i}`))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(decoded), SUMMARY_COLUMNS.map((c) => c.field));
    SUMMARY_COLUMNS.forEach((c, i) => assert.equal(decoded[c.field], c.kind === 'flag' ? i % 2 === 1 : `value-${i}`, c.field));
  });

  test('upsert on an existing path replaces the whole record, bodies included', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(sampleDocument(1));
    const replaced = sampleDocument(2, { path: sampleDocument(1).path, remoteBlocks: [], members: [] });
    ledger.documents.upsert(replaced);
    assert.deepEqual(ledger.documents.get(replaced.path), replaced);
    assert.equal(ledger.documents.count(), 1);
  });

  test('update changes only the given fields, small and large', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1);
    ledger.documents.upsert(doc);
    ledger.documents.update(doc.path, { localHash: 'new-hash', statSize: 7, recheck: true, baseMarkdown: 'new text', alignment: [1, 2] });
    assert.deepEqual(ledger.documents.get(doc.path), { ...doc, localHash: 'new-hash', statSize: 7, recheck: true, baseMarkdown: 'new text', alignment: [1, 2] });
    ledger.documents.update(doc.path, { members: [] });
    assert.deepEqual(ledger.documents.get(doc.path)?.members, []);
  });

  test('update of a missing path, of the path field or with a bad value is refused', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1);
    ledger.documents.upsert(doc);
    assert.equal(codeOf(() => ledger.documents.update('missing.md', { localHash: 'x' })), 'LEDGER_NOT_FOUND');
    assert.equal(codeOf(() => ledger.documents.update(doc.path, { path: 'x.md' } as never)), 'LEDGER_INVALID_RECORD');
    assert.equal(codeOf(() => ledger.documents.update(doc.path, { statSize: Number.NaN })), 'LEDGER_INVALID_RECORD');
    assert.equal(codeOf(() => ledger.documents.update(doc.path, { docKey: '' as never })), 'LEDGER_INVALID_RECORD');
    assert.deepEqual(ledger.documents.get(doc.path), doc);
  });

  test('two records with one docKey are refused with a message naming the path that holds it', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(sampleDocument(1));
    const clash = sampleDocument(2, { docKey: sampleDocument(1).docKey });
    assert.throws(
      () => ledger.documents.upsert(clash),
      (error: Error & { code?: string }) =>
        error.code === 'LEDGER_DUPLICATE' && error.message.includes('dockey-1') && error.message.includes('notes/doc-1.md') && error.message.includes('notes/doc-2.md'),
    );
    assert.equal(ledger.documents.get(clash.path), undefined, 'nothing of the refused record is written');
    assert.equal(ledger.documents.count(), 1);
    ledger.documents.upsert(sampleDocument(3));
    assert.equal(codeOf(() => ledger.documents.update('notes/doc-3.md', { treeNodeId: asTreeNodeId('tree-1') })), 'LEDGER_DUPLICATE');
    assert.equal(ledger.documents.get('notes/doc-3.md')?.treeNodeId, 'tree-3');
  });

  test('rename moves the record and keeps ids and bodies; onto a taken path or from a missing one is refused', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1);
    ledger.documents.upsert(doc);
    ledger.documents.upsert(sampleDocument(2));
    ledger.documents.rename(doc.path, 'moved/renamed.md');
    assert.equal(ledger.documents.get(doc.path), undefined);
    assert.deepEqual(ledger.documents.get('moved/renamed.md'), { ...doc, path: 'moved/renamed.md' });
    assert.equal(codeOf(() => ledger.documents.rename('moved/renamed.md', 'notes/doc-2.md')), 'LEDGER_DUPLICATE');
    assert.equal(codeOf(() => ledger.documents.rename('nope.md', 'x.md')), 'LEDGER_NOT_FOUND');
    assert.equal(ledger.documents.get('notes/doc-2.md')?.docKey, 'dockey-2');
  });

  test('remove forgets the record and its bodies, and says whether there was one', (t) => {
    const ledger = tempLedger(t);
    const doc = sampleDocument(1);
    ledger.documents.upsert(doc);
    assert.equal(ledger.documents.remove(doc.path), true);
    assert.equal(ledger.documents.remove(doc.path), false);
    assert.equal(ledger.documents.count(), 0);
    assert.equal(countRows(ledger.path, 'document_bodies'), 0, 'the body row goes with the record');
    // The same ids can be recorded again once forgotten (no orphan body row blocks them).
    ledger.documents.upsert(doc);
    assert.deepEqual(ledger.documents.get(doc.path), doc);
  });

  test('paths must be relative with / separators; malformed records are refused', (t) => {
    const ledger = tempLedger(t);
    for (const path of ['', '/abs.md', 'a\\b.md', 'a//b.md', './a.md', 'a/../b.md', 'a/']) {
      assert.equal(codeOf(() => ledger.documents.upsert(sampleDocument(1, { path }))), 'LEDGER_INVALID_PATH', path);
    }
    const bad: Partial<Record<keyof DocumentRecord, unknown>>[] = [
      { docKey: '' },
      { nodeId: '' },
      { statIno: Infinity },
      { recheck: 1 },
      { remoteBlocks: 'x' },
      { members: [{ userId: 1, role: 'editor' }] },
      { alignment: undefined },
      { conflictPath: '../out.md' },
    ];
    for (const override of bad) {
      assert.match(codeOf(() => ledger.documents.upsert({ ...sampleDocument(1), ...override } as DocumentRecord)), /^LEDGER_INVALID_/, JSON.stringify(override));
    }
    assert.equal(ledger.documents.count(), 0);
  });

  test('a transaction that throws leaves none of its rows', (t) => {
    const ledger = tempLedger(t);
    assert.throws(() =>
      ledger.transaction(() => {
        ledger.documents.upsert(sampleDocument(1));
        ledger.documents.upsert(sampleDocument(2));
        throw new Error('boom');
      }),
    );
    assert.equal(ledger.documents.count(), 0);
  });
});
