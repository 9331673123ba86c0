import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asCreationNodeId, asTreeNodeId } from '../../../src/model/ids.js';
import type { FolderRecord } from '../../../src/ledger/index.js';
import { codeOf, sampleDocument, tempLedger } from './helpers.js';

const folder = (path: string, n: number, nodeId: string | null = null): FolderRecord => ({
  path,
  treeNodeId: asTreeNodeId(`folder-${n}`),
  nodeId: nodeId === null ? null : asCreationNodeId(nodeId),
  remoteTitle: path.split('/').pop() || 'root',
});

describe('ledger folders', () => {
  test('upsert, get, all (parents first), byTreeNodeId and remove; the root is the empty path', (t) => {
    const ledger = tempLedger(t);
    const records = [folder('b/c', 3, 'created-3'), folder('', 0), folder('b', 2), folder('a', 1)];
    for (const record of records) ledger.folders.upsert(record);
    assert.deepEqual(ledger.folders.get('b/c'), records[0]);
    assert.deepEqual(ledger.folders.get(''), records[1]);
    assert.deepEqual(ledger.folders.byTreeNodeId(asTreeNodeId('folder-2')), records[2]);
    assert.deepEqual(ledger.folders.all().map((f) => f.path), ['', 'a', 'b', 'b/c']);
    ledger.folders.upsert({ ...folder('a', 1), remoteTitle: 'A renamed remotely' });
    assert.equal(ledger.folders.get('a')?.remoteTitle, 'A renamed remotely');
    assert.equal(ledger.folders.remove('a'), true);
    assert.equal(ledger.folders.remove('a'), false);
    assert.equal(ledger.folders.get('a'), undefined);
  });

  test('one remote folder cannot back two local folders; bad input is refused', (t) => {
    const ledger = tempLedger(t);
    ledger.folders.upsert(folder('a', 1));
    assert.throws(() => ledger.folders.upsert(folder('b', 1)), (error: Error & { code?: string }) => error.code === 'LEDGER_DUPLICATE' && error.message.includes('"a"'));
    assert.equal(codeOf(() => ledger.folders.upsert({ ...folder('c', 3), treeNodeId: asTreeNodeId('') })), 'LEDGER_INVALID_RECORD');
    assert.equal(codeOf(() => ledger.folders.upsert(folder('/abs', 4))), 'LEDGER_INVALID_PATH');
    assert.deepEqual(ledger.folders.all().map((f) => f.path), ['a']);
  });

  test('rename moves the folder, the folders below it and the documents below it, and nothing else', (t) => {
    const ledger = tempLedger(t);
    for (const record of [folder('docs', 1), folder('docs/api', 2), folder('docs-old', 3), folder('other', 4)]) ledger.folders.upsert(record);
    ledger.documents.upsert(sampleDocument(1, { path: 'docs/a.md', conflictPath: 'docs/a.conflict-1.md', conflict: true }));
    ledger.documents.upsert(sampleDocument(2, { path: 'docs/api/b.md' }));
    ledger.documents.upsert(sampleDocument(3, { path: 'docs-old/c.md' }));
    ledger.documents.upsert(sampleDocument(4, { path: 'docs.md' }));
    ledger.folders.rename('docs', 'guide/docs');
    assert.deepEqual(ledger.folders.all().map((f) => f.path), ['docs-old', 'guide/docs', 'guide/docs/api', 'other']);
    assert.deepEqual(ledger.documents.allSummaries().map((d) => d.path), ['docs-old/c.md', 'docs.md', 'guide/docs/a.md', 'guide/docs/api/b.md']);
    assert.equal(ledger.documents.get('guide/docs/a.md')?.conflictPath, 'guide/docs/a.conflict-1.md');
    assert.equal(ledger.folders.get('guide/docs')?.treeNodeId, 'folder-1');
  });

  test('rename onto a taken folder, into itself or of a missing folder is refused and changes nothing', (t) => {
    const ledger = tempLedger(t);
    ledger.folders.upsert(folder('a', 1));
    ledger.folders.upsert(folder('b', 2));
    ledger.documents.upsert(sampleDocument(1, { path: 'a/x.md' }));
    ledger.documents.upsert(sampleDocument(2, { path: 'c/x.md' }));
    assert.equal(codeOf(() => ledger.folders.rename('a', 'b')), 'LEDGER_DUPLICATE');
    assert.equal(codeOf(() => ledger.folders.rename('a', 'a/inner')), 'LEDGER_INVALID_PATH');
    assert.equal(codeOf(() => ledger.folders.rename('missing', 'z')), 'LEDGER_NOT_FOUND');
    // The folder move would fit, but a document below it would land on an existing record: all or nothing.
    assert.equal(codeOf(() => ledger.folders.rename('a', 'c')), 'LEDGER_DUPLICATE');
    assert.deepEqual(ledger.folders.all().map((f) => f.path), ['a', 'b']);
    assert.deepEqual(ledger.documents.allSummaries().map((d) => d.path), ['a/x.md', 'c/x.md']);
  });
});
