import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getHeapSnapshot } from 'node:v8';
import Database from 'better-sqlite3';
import { asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { sampleDocument, tempLedger } from './helpers.js';

/** How many string objects in this process's heap hold each of `values` (a heap snapshot, taken after a full collection). */
async function stringCopies(values: readonly string[]): Promise<Map<string, number>> {
  const chunks: Buffer[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk as Buffer);
  const snapshot = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const wanted = new Set(values);
  const copies = new Map(values.map((value) => [value, 0]));
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i] as number] as string;
    const name = snapshot.strings[snapshot.nodes[i + 1] as number] as string;
    if (type.endsWith('string') && wanted.has(name)) copies.set(name, (copies.get(name) ?? 0) + 1);
  }
  return copies;
}

describe('a ledger kept for a long run (the daemon)', () => {
  test('keeps every summary between reads', (t) => {
    const ledger = tempLedger(t, { lock: false });
    assert.equal(ledger.documents.keepsSummaries, false);
    ledger.keepForLongRun();
    assert.equal(ledger.documents.keepsSummaries, true);
  });

  test('changedElsewhere says each commit of another connection once, and never the ledger\'s own', (t) => {
    const ledger = tempLedger(t, { lock: false });
    ledger.changedElsewhere(); // the baseline
    ledger.documents.upsert(sampleDocument(1));
    assert.equal(ledger.changedElsewhere(), false, "the ledger's own write");
    const other = new Database(ledger.path);
    t.after(() => other.close());
    for (let round = 0; round < 3; round++) {
      other.prepare("UPDATE documents SET remote_title = ? WHERE path = 'notes/doc-1.md'").run(`elsewhere ${round}`);
      assert.equal(ledger.changedElsewhere(), true, `the other connection's commit ${round}`);
      assert.equal(ledger.changedElsewhere(), false, 'said once');
    }
  });

  test('rows kept for a long run hold one string for each repeated workspace and parent folder, not one a row', async (t) => {
    const ledger = tempLedger(t, { lock: false });
    // Made at run time, so the test's own source holds no copy.
    const workspace = Buffer.from('shared-workspace-'.padEnd(40, 'w')).toString();
    const parent = Buffer.from('shared-parent-'.padEnd(40, 'p')).toString();
    ledger.transaction(() => {
      for (let n = 0; n < 300; n++) ledger.documents.upsert(sampleDocument(n, { workspaceId: asWorkspaceId(workspace), parentTreeNodeId: asTreeNodeId(parent) }));
    });
    ledger.keepForLongRun();
    const rows = ledger.documents.allSummaries();
    ledger.documents.upsert({ ...sampleDocument(7, { workspaceId: asWorkspaceId(workspace), parentTreeNodeId: asTreeNodeId(parent) }), remoteTitle: 'written again' });
    assert.equal(ledger.documents.allSummaries().length, 300);
    const copies = await stringCopies([workspace, parent]);
    // One each in the test's variables, one in the kept rows (however many rows); the rows read before keeping are gone.
    for (const [value, count] of copies) assert.ok(count <= 3, `${count} copies of ${value} for ${rows.length} rows`);
  });
});

