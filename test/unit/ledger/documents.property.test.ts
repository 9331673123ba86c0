import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { DocumentRecord } from '../../../src/ledger/index.js';
import { asDocKey, asTreeNodeId } from '../../../src/model/ids.js';
import { codeOf, sampleDocument, tempLedger } from './helpers.js';

// Small pools so that collisions (same path, same docKey, same treeNodeId) are frequent.
const path = fc.constantFrom('a.md', 'b.md', 'dir/a.md', 'dir/sub/c.md', 'ünï.md');
const id = fc.integer({ min: 0, max: 4 });

type Command =
  | { readonly op: 'upsert'; readonly path: string; readonly docKey: number; readonly treeNodeId: number; readonly hash: string }
  | { readonly op: 'rename'; readonly from: string; readonly to: string }
  | { readonly op: 'remove'; readonly path: string };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('upsert' as const), path, docKey: id, treeNodeId: id, hash: fc.string({ maxLength: 6 }) }),
  fc.record({ op: fc.constant('rename' as const), from: path, to: path }),
  fc.record({ op: fc.constant('remove' as const), path }),
);

const recordFor = (cmd: Extract<Command, { op: 'upsert' }>): DocumentRecord =>
  sampleDocument(cmd.docKey, {
    path: cmd.path,
    docKey: asDocKey(`key-${cmd.docKey}`),
    treeNodeId: asTreeNodeId(`tree-${cmd.treeNodeId}`),
    localHash: cmd.hash,
    baseMarkdown: `text ${cmd.hash}`,
  });

/** What the ledger must do, on a plain Map: the expected error code, or 'no error' after applying the change. */
function applyToModel(model: Map<string, DocumentRecord>, cmd: Command): string {
  switch (cmd.op) {
    case 'upsert': {
      const record = recordFor(cmd);
      const others = [...model.values()].filter((r) => r.path !== cmd.path);
      if (others.some((r) => r.docKey === record.docKey || r.treeNodeId === record.treeNodeId)) return 'LEDGER_DUPLICATE';
      model.set(cmd.path, record);
      return 'no error';
    }
    case 'rename': {
      const record = model.get(cmd.from);
      if (!record) return 'LEDGER_NOT_FOUND';
      if (cmd.from === cmd.to) return 'no error';
      if (model.has(cmd.to)) return 'LEDGER_DUPLICATE';
      model.delete(cmd.from);
      model.set(cmd.to, { ...record, path: cmd.to });
      return 'no error';
    }
    case 'remove':
      model.delete(cmd.path);
      return 'no error';
  }
}

describe('ledger documents against an in-memory model', () => {
  test('random upsert / rename / remove sequences keep the ledger equal to the model', (t) => {
    const ledger = tempLedger(t);
    const docs = ledger.documents;
    fc.assert(
      fc.property(fc.array(command, { maxLength: 25 }), (commands) => {
        for (const summary of docs.allSummaries()) docs.remove(summary.path);
        const model = new Map<string, DocumentRecord>();
        for (const cmd of commands) {
          const expected = applyToModel(model, cmd);
          const actual = codeOf(() => {
            if (cmd.op === 'upsert') docs.upsert(recordFor(cmd));
            else if (cmd.op === 'rename') docs.rename(cmd.from, cmd.to);
            else docs.remove(cmd.path);
          });
          assert.equal(actual, expected, JSON.stringify(cmd));
          const sorted = [...model.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
          assert.deepEqual(docs.allRecords(), sorted);
          assert.equal(docs.count(), model.size);
          for (const record of sorted) assert.deepEqual(docs.byDocKey(record.docKey), record);
        }
      }),
      { numRuns: 150 },
    );
  });
});
