import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { openLedger, type Ledger } from '../../../src/ledger/index.js';
import { asDocKey, asTreeNodeId } from '../../../src/model/ids.js';
import { codeOf, sampleDocument, tempLedger } from './helpers.js';

// Small pools so that the same rows are written, moved and deleted again and again.
const path = fc.constantFrom('a.md', 'b.md', 'dir/a.md', 'dir/sub/c.md', 'other/d.md');
const folder = fc.constantFrom('dir', 'other', 'moved');
const n = fc.integer({ min: 0, max: 4 });

type Command =
  | { readonly op: 'upsert'; readonly path: string; readonly n: number }
  | { readonly op: 'update'; readonly path: string; readonly n: number }
  | { readonly op: 'rename'; readonly from: string; readonly to: string }
  | { readonly op: 'moveFolder'; readonly from: string; readonly to: string }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'rolledBack'; readonly path: string; readonly n: number }
  | { readonly op: 'otherConnection'; readonly path: string; readonly n: number }
  | { readonly op: 'read' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('upsert' as const), path, n }),
  fc.record({ op: fc.constant('update' as const), path, n }),
  fc.record({ op: fc.constant('rename' as const), from: path, to: path }),
  fc.record({ op: fc.constant('moveFolder' as const), from: folder, to: folder }),
  fc.record({ op: fc.constant('remove' as const), path }),
  fc.record({ op: fc.constant('rolledBack' as const), path, n }),
  fc.record({ op: fc.constant('otherConnection' as const), path, n }),
  fc.constant({ op: 'read' as const }),
);

let unique = 0;
const recordAt = (at: string, k: number) => {
  unique += 1;
  return sampleDocument(k, { path: at, docKey: asDocKey(`key-${unique}`), treeNodeId: asTreeNodeId(`tree-${unique}`), localHash: `hash-${k}` });
};

function apply(ledger: Ledger, file: string, cmd: Command): void {
  const docs = ledger.documents;
  switch (cmd.op) {
    case 'upsert':
      return docs.upsert(recordAt(cmd.path, cmd.n));
    case 'update':
      return docs.update(cmd.path, { localHash: `edited-${cmd.n}`, statSize: cmd.n, recheck: cmd.n % 2 === 0 });
    case 'rename':
      return docs.rename(cmd.from, cmd.to);
    case 'moveFolder':
      return void docs.moveFolder(cmd.from, cmd.to);
    case 'remove':
      return void docs.remove(cmd.path);
    case 'rolledBack':
      // Written, then undone: the kept rows must show the file, not what the transaction wrote.
      return void codeOf(() =>
        ledger.transaction(() => {
          docs.update(cmd.path, { localHash: 'never-committed' });
          docs.upsert(recordAt(`${cmd.path}.new.md`, cmd.n));
          throw new Error('rollback');
        }),
      );
    case 'otherConnection': {
      // Not through this Ledger at all (another process, a repair by hand): seen through SQLite's data_version.
      const db = new Database(file);
      try {
        db.prepare('UPDATE documents SET remote_title = ? WHERE path = ?').run(`by hand ${cmd.n}`, cmd.path);
      } finally {
        db.close();
      }
      return;
    }
    case 'read':
      return void docs.allSummaries();
  }
}

describe('kept summaries (DocumentsRepo.keepSummaries, the daemon)', () => {
  test('after any sequence of writes, moves, deletes, rollbacks and outside writes, allSummaries() equals a fresh read', (t) => {
    const kept = tempLedger(t, { lock: false });
    kept.documents.keepSummaries();
    const fresh = openLedger(kept.path, { readonly: true });
    t.after(() => fresh.close());
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        for (const summary of fresh.documents.allSummaries()) kept.documents.remove(summary.path);
        for (const cmd of commands) {
          codeOf(() => apply(kept, kept.path, cmd));
          assert.deepEqual(kept.documents.allSummaries(), fresh.documents.allSummaries(), JSON.stringify(cmd));
          assert.deepEqual(kept.documents.summariesByPath(), fresh.documents.summariesByPath(), JSON.stringify(cmd));
        }
      }),
      { numRuns: 150 },
    );
  });

  test('summaryChanges names every row that is not the object it was at the cursor, or says that any may differ', (t) => {
    const ledger = tempLedger(t, { lock: false });
    ledger.documents.keepSummaries();
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), fc.array(fc.boolean(), { maxLength: 30 }), (commands, asks) => {
        for (const summary of ledger.documents.allSummaries()) ledger.documents.remove(summary.path);
        let seen = ledger.documents.summaryChanges(undefined);
        let before = new Map(ledger.documents.summariesByPath());
        commands.forEach((cmd, i) => {
          codeOf(() => apply(ledger, ledger.path, cmd));
          // The reader does not look after every write: what it is told covers every write since it last looked.
          if (asks[i] === false) return;
          const changes = ledger.documents.summaryChanges(seen?.cursor);
          const now = ledger.documents.summariesByPath();
          if (changes?.paths) {
            const named = new Set(changes.paths);
            assert.deepEqual([...now.keys()], [...before.keys()], `no row came or went unsaid: ${JSON.stringify(cmd)}`);
            for (const [path, row] of now) if (before.get(path) !== row) assert.ok(named.has(path), `${path} changed unsaid after ${JSON.stringify(cmd)}`);
          }
          seen = changes;
          before = new Map(now);
        });
      }),
      { numRuns: 150 },
    );
  });

  test('rows not written since are the very same objects; a written row is read again', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.keepSummaries();
    for (const k of [1, 2, 3]) ledger.documents.upsert(sampleDocument(k));
    const before = ledger.documents.allSummaries();
    const [first, second, third] = before;
    ledger.documents.update(sampleDocument(2).path, { localHash: 'pushed' });
    const after = ledger.documents.allSummaries();
    assert.equal(after[0], first);
    assert.notEqual(after[1], second);
    assert.equal(after[1]?.localHash, 'pushed');
    assert.equal(after[2], third);
  });

  test('inside a transaction the file is read, not the kept rows', (t) => {
    const ledger = tempLedger(t);
    ledger.documents.keepSummaries();
    ledger.documents.upsert(sampleDocument(1));
    ledger.documents.allSummaries();
    ledger.transaction(() => {
      ledger.documents.update(sampleDocument(1).path, { localHash: 'in-transaction' });
      assert.equal(ledger.documents.allSummaries()[0]?.localHash, 'in-transaction');
    });
    assert.equal(ledger.documents.allSummaries()[0]?.localHash, 'in-transaction');
  });
});
