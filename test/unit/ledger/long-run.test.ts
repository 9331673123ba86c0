import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { sampleDocument, tempLedger } from './helpers.js';

describe('a ledger kept for a long run (the daemon)', () => {
  test("keeps every summary between reads and holds SQLite's page cache to SQLite's 2 MB, not better-sqlite3's 16", (t) => {
    const ledger = tempLedger(t, { lock: false });
    assert.equal(ledger.pageCacheKib, 16_000, "better-sqlite3's build, which a one-shot run keeps");
    assert.equal(ledger.documents.keepsSummaries, false);
    ledger.keepForLongRun();
    assert.equal(ledger.pageCacheKib, 2000);
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
});
