import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Ledger } from '../../../src/ledger/index.js';
import { asCreationNodeId, asDocKey, asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { sampleDocument, tempLedger } from './helpers.js';

/**
 * The settled-tree fingerprint stands for the ledger it was recorded with: every write to anything a plan
 * reads must drop it, whichever repository makes the write.
 */
const writes: Record<string, (ledger: Ledger) => void> = {
  'a new document row': (l) => l.documents.upsert(sampleDocument(9)),
  'a document field': (l) => l.documents.update('notes/doc-1.md', { recheck: true }),
  'a document body': (l) => l.documents.update('notes/doc-1.md', { baseMarkdown: '# Changed\n' }),
  'a document stat': (l) => l.documents.update('notes/doc-1.md', { statSize: 1 }),
  'a renamed document': (l) => l.documents.rename('notes/doc-1.md', 'notes/moved.md'),
  'a removed document': (l) => void l.documents.remove('notes/doc-1.md'),
  'a new folder': (l) => l.folders.upsert({ path: 'other', treeNodeId: asTreeNodeId('tree-other'), nodeId: null, remoteTitle: 'other' }),
  'a removed folder': (l) => void l.folders.remove('notes'),
  'an intent begun': (l) => void l.intents.begin('create', 'notes/new.md', { title: 'New' }),
  'an intent completed': (l) => l.intents.complete(l.intents.open()[0]?.id ?? assert.fail('no open intent')),
  'a retirement': (l) => l.retirements.add({ docKey: asDocKey('old'), nodeId: asCreationNodeId('node-old'), workspaceId: asWorkspaceId('ws-1'), path: 'notes/old.md', successor: null }),
  'an image URL': (l) => l.images.put('image-key', 'https://kb.example/img'),
  'a meta value': (l) => l.meta.set('rootNodeId:ws-1', 'tree-root'),
};

describe('the settled-tree fingerprint', () => {
  test('is kept until the next write, and read back as recorded', (t) => {
    const ledger = tempLedger(t);
    assert.equal(ledger.settledTree.get(), undefined);
    ledger.settledTree.record('first');
    ledger.settledTree.record('second');
    assert.equal(ledger.settledTree.get(), 'second');
    // Reads leave it standing.
    ledger.documents.allStats();
    ledger.meta.get('anything');
    assert.equal(ledger.settledTree.get(), 'second');
  });

  for (const [what, write] of Object.entries(writes)) {
    test(`is dropped by ${what}`, (t) => {
      const ledger = tempLedger(t);
      ledger.documents.upsert(sampleDocument(1));
      ledger.folders.upsert({ path: 'notes', treeNodeId: asTreeNodeId('tree-notes'), nodeId: null, remoteTitle: 'notes' });
      if (what === 'an intent completed') ledger.intents.begin('create', 'notes/new.md', { title: 'New' });
      ledger.settledTree.record('fingerprint');
      write(ledger);
      assert.equal(ledger.settledTree.get(), undefined);
    });
  }

  test('is dropped by a write rolled into a transaction, and survives a transaction rolled back', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.upsert(sampleDocument(1));
    ledger.settledTree.record('fingerprint');
    assert.throws(() =>
      ledger.transaction(() => {
        ledger.documents.update('notes/doc-1.md', { recheck: true });
        throw new Error('rolled back');
      }),
    );
    assert.equal(ledger.settledTree.get(), 'fingerprint');
    ledger.transaction(() => ledger.documents.update('notes/doc-1.md', { recheck: true }));
    assert.equal(ledger.settledTree.get(), undefined);
  });
});
