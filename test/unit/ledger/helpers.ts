import Database from 'better-sqlite3';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openLedger, type Ledger, type LedgerOptions } from '../../../src/ledger/index.js';
import type { DocumentRecord } from '../../../src/ledger/index.js';
import { asBlockId, asCreationNodeId, asDocKey, asTreeNodeId, asUserId, asWorkspaceId } from '../../../src/model/ids.js';

/** A fresh temp folder removed when the test ends. */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'kbsync-ledger-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A ledger in a fresh temp folder (under a not-yet-existing .kbsync/), closed when the test ends. */
export function tempLedger(t: TestContext, options: LedgerOptions = {}): Ledger {
  const ledger = openLedger(join(tempDir(t), '.kbsync', 'ledger.db'), options);
  t.after(() => ledger.close());
  return ledger;
}

/** A complete, valid document record; `n` makes its ids and path distinct. */
export function sampleDocument(n: number, overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  const record: Omit<DocumentRecord, 'inexact' | 'inexactFormatting' | 'inexactHidden'> = {
    path: `notes/doc-${n}.md`,
    docKey: asDocKey(`dockey-${n}`),
    nodeId: asCreationNodeId(`node-${n}`),
    treeNodeId: asTreeNodeId(`tree-${n}`),
    workspaceId: asWorkspaceId('ws-1'),
    parentTreeNodeId: asTreeNodeId('tree-root'),
    url: `https://kb.example/doc/${n}`,
    remoteTitle: `Doc ${n}`,
    listedTitle: null,
    placedAt: 0,
    localHash: `hash-${n}`,
    statSize: 100 + n,
    statMtimeMs: 1_700_000_000_000.25 + n,
    statIno: 5000 + n,
    remoteBlocksHash: `blocks-${n}`,
    remoteModifiedTime: '2024-05-01 10:20',
    syncedAt: 1_714_558_860_000,
    recheck: false,
    conflict: false,
    conflictPath: null,
    origin: 'created',
    heldCode: null,
    heldLocalHash: null,
    heldRemoteTime: null,
    publishedRecord: null,
    publishedSource: null,
    imagesSent: null,
    baseMarkdown: `---\ntitle: Doc ${n}\n---\n# Doc ${n}\n\nSome text, "quoted" and ünïcode ✓.\n`,
    remoteBlocks: [
      { id: asBlockId(`b${n}-0`), index: 0, type: 'heading', level: 1, text: `Doc ${n}` },
      { id: asBlockId(`b${n}-1`), index: 1, type: 'paragraph', text: 'Some text, "quoted" and ünïcode ✓.' },
      { id: asBlockId(`b${n}-2`), index: 2, type: 'table', cols: 2, rows: 1, cells: [['a', 'b']] },
      { id: asBlockId(`b${n}-3`), index: 3, type: 'unknown', kind: 'code' },
    ],
    alignment: { pairs: [[0, 0], [1, 1]], version: 1, note: null },
    members: [{ userId: asUserId(`user-${n}`), role: 'editor' }],
    conflictBase: null,
    publishedOver: null,
    hiddenEdit: null,
    lossyBase: false,
    formattingOnly: false,
    hiddenBase: false,
    agreedAt: 0,
    headCarried: false,
    namedHere: false,
    readPlainly: false,
    replacedHead: null,
    builtOn: null,
    ...overrides,
  };
  // As the ledger derives it from the body (the last migration's triggers).
  return { ...record, inexact: record.lossyBase || record.hiddenEdit !== null, inexactFormatting: record.lossyBase && record.formattingOnly && record.hiddenEdit === null,
    inexactHidden: record.hiddenEdit !== null || (record.lossyBase && record.hiddenBase),
  };
}

/** The error code a function throws, or 'no error'. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return String((error as { code?: unknown }).code);
  }
  return 'no error';
}

/** Runs a fixture script under tsx; resolves once it prints `marker` on stdout. Killed when the test ends. */
export async function spawnUntil(t: TestContext, script: string, args: readonly string[], marker: string): Promise<{ child: ChildProcessWithoutNullStreams; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(marker)) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`${script} exited (${code ?? signal}) before printing ${marker}: ${errors}`)));
  });
  return { child, output };
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Rows in a ledger table, read through a separate connection (white-box checks of what is on disk). */
export function countRows(ledgerPath: string, table: string): number {
  const db = new Database(ledgerPath, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
