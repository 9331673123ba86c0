import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { LEDGER_SCHEMA_VERSION, lockPathOf, openLedger, openLedgerBeside, openLedgerSnapshot } from '../../../src/ledger/index.js';
import { integrityCheckReason } from '../../../src/ledger/inspect.js';
import { codeOf, sampleDocument, tempDir } from './helpers.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Creates a closed ledger at `path` holding `n` documents. */
function ledgerWith(path: string, n: number): void {
  const ledger = openLedger(path);
  ledger.transaction(() => {
    for (let i = 0; i < n; i += 1) ledger.documents.upsert(sampleDocument(i));
  });
  ledger.close();
}

/** Asserts that opening `path` fails with `code` and leaves the folder byte-for-byte as it was. */
function assertRefusedUntouched(path: string, code: string, mention: RegExp): void {
  const folder = join(path, '..');
  const before = readdirSync(folder).map((name) => [name, readFileSync(join(folder, name)).toString('base64')]);
  assert.throws(
    () => openLedger(path),
    (error: Error & { code?: string }) => error.code === code && error.message.includes(path) && mention.test(error.message),
  );
  const after = readdirSync(folder).map((name) => [name, readFileSync(join(folder, name)).toString('base64')]);
  assert.deepEqual(after, before, 'no file in the ledger folder changed, appeared or disappeared');
}

describe('opening the ledger', () => {
  test('a ledger from before `inexactHidden` gets it from a standing hidden edit, and keeps it current after', (t) => {
    const path = join(tempDir(t), 'ledger.sqlite');
    const ledger = openLedger(path);
    ledger.documents.upsert(sampleDocument(1, { lossyBase: true }));
    ledger.documents.upsert(sampleDocument(2));
    ledger.documents.upsert(sampleDocument(3, { hiddenEdit: '2026-01-01T00:00Z' }));
    ledger.close();
    // As a ledger written before `hidden_base` is (and so before `head_carried`, `replaced_head`, `named_here`, `built_on`, a retirement's `successor`, `notices_said`, `read_plainly` and `unrecorded_said`, the eight schemas after it): its triggers derive `inexact` and `inexact_formatting`.
    const db = new Database(path);
    const inexact = (row: string) => `(${row}.lossy_base <> 0 OR ${row}.hidden_edit IS NOT NULL)`;
    const formatting = (row: string) => `(${row}.lossy_base <> 0 AND ${row}.formatting_only <> 0 AND ${row}.hidden_edit IS NULL)`;
    const derive = (row: string) => `UPDATE documents SET inexact = ${inexact(row)}, inexact_formatting = ${formatting(row)} WHERE id = ${row}.document_id;`;
    db.exec(`
      DROP TRIGGER documents_inexact_insert; DROP TRIGGER documents_inexact_update;
      ALTER TABLE documents DROP COLUMN inexact_hidden; ALTER TABLE document_bodies DROP COLUMN hidden_base; ALTER TABLE documents DROP COLUMN head_carried; ALTER TABLE document_bodies DROP COLUMN replaced_head; ALTER TABLE documents DROP COLUMN named_here; ALTER TABLE document_bodies DROP COLUMN built_on; ALTER TABLE retirements DROP COLUMN successor; DROP TABLE notices_said; ALTER TABLE documents DROP COLUMN read_plainly; DROP TABLE unrecorded_said;
      CREATE TRIGGER documents_inexact_insert AFTER INSERT ON document_bodies BEGIN ${derive('NEW')} END;
      CREATE TRIGGER documents_inexact_update AFTER UPDATE OF lossy_base, hidden_edit, formatting_only ON document_bodies BEGIN ${derive('NEW')} END;
    `);
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION - 9}`);
    db.close();

    const reopened = openLedger(path);
    t.after(() => reopened.close());
    assert.ok(reopened.documents.allSummaries().every((row) => !row.headCarried), 'no front matter was kept across a reading before kbsync said so');
    assert.ok(reopened.documents.allSummaries().every((row) => !row.namedHere), 'no path was named here from a title before kbsync said so');
    assert.ok(reopened.documents.allRecords().every((row) => row.builtOn === null), 'no version is known made from another before kbsync said so');
    assert.ok(reopened.documents.allSummaries().every((row) => !row.readPlainly), 'no base was taken for a plain reading before kbsync said so');
    const derived = () => reopened.documents.allSummaries().map((row) => [row.path, row.inexact, row.inexactHidden]);
    const [one, two, three] = [1, 2, 3].map((n) => sampleDocument(n).path);
    // A lossy base of before cannot say whether another writer's version it took held a hidden edit: none is claimed.
    assert.deepEqual(derived(), [[one, true, false], [two, false, false], [three, true, true]], 'a standing hidden edit is one');
    reopened.documents.update(one as string, { hiddenBase: true });
    reopened.documents.update(two as string, { hiddenBase: true });
    assert.deepEqual(derived(), [[one, true, true], [two, false, false], [three, true, true]], 'a hidden base counts only with a lossy base');
    reopened.documents.update(three as string, { hiddenEdit: null });
    assert.equal(reopened.documents.summary(three as string)?.inexactHidden, false);
  });

  test('creates a private folder (0700) and file (0600), then migrates it to the current schema', (t) => {
    const path = join(tempDir(t), 'deep', '.kbsync', 'ledger.db');
    const ledger = openLedger(path);
    t.after(() => ledger.close());
    assert.equal(ledger.path, path);
    assert.equal(modeOf(join(path, '..')), 0o700);
    assert.equal(modeOf(join(path, '..', '..')), 0o700);
    assert.equal(modeOf(path), 0o600);
    ledger.documents.upsert(sampleDocument(1));
    assert.equal(modeOf(`${path}-wal`), 0o600, 'the write-ahead log holds document text too');
    const db = new Database(path, { readonly: true });
    t.after(() => db.close());
    assert.equal(db.pragma('user_version', { simple: true }), LEDGER_SCHEMA_VERSION);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  });

  test('an empty file (a crash right after creating it) becomes a fresh ledger', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    writeFileSync(path, '');
    const ledger = openLedger(path);
    t.after(() => ledger.close());
    assert.equal(ledger.documents.count(), 0);
    ledger.documents.upsert(sampleDocument(1));
    assert.equal(ledger.documents.count(), 1);
  });

  test('re-opening keeps every table and leaves nothing behind after close', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const ledger = openLedger(path);
    ledger.documents.upsert(sampleDocument(1));
    ledger.folders.upsert({ path: '', treeNodeId: sampleDocument(0).parentTreeNodeId, nodeId: null, remoteTitle: 'KB' });
    ledger.meta.set('workspaceId', 'ws-1');
    const intent = ledger.intents.begin('pull', 'dockey-1', { why: 'test' });
    ledger.close();
    ledger.close(); // twice is harmless
    assert.deepEqual(readdirSync(join(path, '..')), ['ledger.db'], 'WAL folded in, lock released');
    const again = openLedger(path);
    t.after(() => again.close());
    assert.deepEqual(again.documents.get('notes/doc-1.md'), sampleDocument(1));
    assert.equal(again.folders.get('')?.remoteTitle, 'KB');
    assert.equal(again.meta.get('workspaceId'), 'ws-1');
    assert.deepEqual(again.intents.open().map((i) => i.id), [intent]);
  });

  test('a ledger from a newer kbsync is refused and left untouched', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    ledgerWith(path, 2);
    const db = new Database(path);
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION + 1}`);
    db.close();
    assertRefusedUntouched(path, 'LEDGER_TOO_NEW', /newer kbsync/);
  });

  test('a SQLite file of another program is refused and left untouched', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const db = new Database(path);
    db.exec('CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES (1)');
    db.close();
    assertRefusedUntouched(path, 'LEDGER_FOREIGN', /not a kbsync ledger/);
  });

  test('garbage bytes are refused as corrupt, naming the file and saying to move it aside', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 256)));
    assertRefusedUntouched(path, 'LEDGER_CORRUPT', /Move it aside/);
    writeFileSync(path, 'SQLite format 3\0 but then nothing');
    assertRefusedUntouched(path, 'LEDGER_CORRUPT', /re-adopts/);
  });

  test('a truncated real ledger is refused as corrupt and left byte-for-byte unchanged', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    ledgerWith(path, 60);
    const size = statSync(path).size;
    for (const cut of [Math.floor(size / 2 / 4096) * 4096, size - 4096, 2000]) {
      ledgerWith(join(path, '..', 'fresh.db'), 0); // keep another ledger beside it: must not matter
      truncateSync(path, cut);
      assertRefusedUntouched(path, 'LEDGER_CORRUPT', /damaged/);
      ledgerWith(path + '.rebuilt', 60);
      writeFileSync(path, readFileSync(path + '.rebuilt'));
    }
  });

  test('the full check (quick_check) runs only when a clean close is not certain: a log left behind, a size off its header, a lock taken over', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    ledgerWith(path, 40);
    assert.equal(integrityCheckReason(path), null, 'a cleanly closed ledger needs no full read');
    const open = openLedger(path);
    open.documents.upsert(sampleDocument(41));
    assert.match(integrityCheckReason(path) ?? '', /write-ahead log/, 'a run still holding it (or killed) leaves its log');
    open.close();
    assert.equal(integrityCheckReason(path), null);

    // Garbage over one page, size unchanged: only the full check sees it, so it must run after a crash.
    const db = new Database(path, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, pageSize);
    closeSync(fd);
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: dead, hostname: hostname(), startedAt: Date.now() - 1000, command: 'kbsync sync', token: 'x' }));
    assert.equal(codeOf(() => openLedger(path)), 'LEDGER_CORRUPT', 'the lock was left by a process that died: everything is read');
    assert.equal(existsSync(lockPathOf(path)), false, 'the refused open released the lock it took over');
  });

  test('readonly: reads without a lock or migration; refuses writes; a missing file is reported', (t) => {
    const dir = tempDir(t);
    const path = join(dir, 'ledger.db');
    assert.equal(codeOf(() => openLedger(path, { readonly: true })), 'LEDGER_MISSING');
    assert.equal(existsSync(path), false, 'a readonly open creates nothing');
    const writer = openLedger(path);
    t.after(() => writer.close());
    writer.documents.upsert(sampleDocument(1));
    const reader = openLedger(path, { readonly: true });
    t.after(() => reader.close());
    assert.equal(reader.readonly, true);
    assert.deepEqual(reader.documents.get('notes/doc-1.md'), sampleDocument(1), 'sees what the lock holder committed');
    assert.throws(() => reader.documents.upsert(sampleDocument(2)), /readonly/i);
  });

  test("every way of opening holds SQLite's page cache to SQLite's 2 MB, not better-sqlite3's 16 (a one-shot run's too)", (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const writer = openLedger(path);
    t.after(() => writer.close());
    const opened = [writer, openLedger(path, { readonly: true }), openLedgerBeside(path), openLedgerSnapshot(path)];
    for (const ledger of opened.slice(1)) t.after(() => ledger.close());
    assert.deepEqual(opened.map((ledger) => ledger.pageCacheKib), [2000, 2000, 2000, 2000]);
  });

  test('lock: false lets a second handle open the same file (for tools that coordinate themselves)', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const first = openLedger(path);
    t.after(() => first.close());
    assert.equal(codeOf(() => openLedger(path)), 'LEDGER_LOCKED');
    const second = openLedger(path, { lock: false });
    t.after(() => second.close());
    assert.equal(second.documents.count(), 0);
  });

  test('a path that is a folder, empty, or below a file is refused with a clear code', (t) => {
    const dir = tempDir(t);
    assert.equal(codeOf(() => openLedger(dir)), 'LEDGER_OPEN_FAILED');
    assert.equal(codeOf(() => openLedger('')), 'LEDGER_PATH');
    writeFileSync(join(dir, 'file'), '');
    assert.equal(codeOf(() => openLedger(join(dir, 'file', 'ledger.db'))), 'LEDGER_OPEN_FAILED');
  });
});
