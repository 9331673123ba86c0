import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseBlock } from '../../src/api/blocks.js';
import type { RawBlock } from '../../src/api/schemas.js';
import type { CallStats, DumpedNode } from '../../src/emulator/index.js';
import { openLedger, type DocumentSummary } from '../../src/ledger/index.js';
import { isConflictCopyName } from '../../src/local/names.js';
import { blocksToMarkdown, parseDocument } from '../../src/markdown/index.js';
import { LEFT_TO_A_PERSON } from '../../src/sync/decide/held.js';
import { syncOnce } from './in-process-sync.js';
import type { SyncFixture } from './sync-fixture.js';

/**
 * Checks shared by the reliability and chaos tests: what "converged", "no duplicate", "nothing lost"
 * and "steady" mean, computed from the files on disk, the ledger and the emulator's dump. Each check
 * returns a list of problems (empty when it holds) so a test can collect them into a matrix.
 */

/** Endpoints that change the service: a steady sync calls none of them. */
export const WRITE_ENDPOINTS = ['createDocument', 'overwriteContent', 'appendText', 'deleteDocument'] as const;

/** The write calls (non-zero only) in a call snapshot. */
export function writeCalls(stats: CallStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of WRITE_ENDPOINTS) if (stats.byEndpoint[name].calls > 0) out[name] = stats.byEndpoint[name].calls;
  return out;
}

/**
 * A body reduced to what the service and a reader see: front matter dropped, line endings unified,
 * trailing spaces and repeated blank lines removed. Two texts that normalise equally are "the same version".
 */
export function normaliseBody(text: string): string {
  const body = parseDocument(text.replace(/\r\n?/g, '\n')).body;
  return body
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const posixRel = (from: string, to: string): string => relative(from, to).split(sep).join('/');

type TreeOptions = {
  /** Files left out, by POSIX path relative to the tree's folder. */
  readonly skip?: (rel: string) => boolean;
  /** Folders not even listed, by POSIX path relative to the tree's folder. */
  readonly skipFolder?: (rel: string) => boolean;
};

/**
 * Every file under `dir` (recursively), folders `skipFolder` names left out, as dirents, in the order Node's own
 * recursive readdir lists them (a stack of folders, each listed as it is found), so a tree's Map keeps its order.
 * kbsync's state folder beside the files (the ledger, its backups and trash) made five in six of the entries a
 * recursive readdir of a model test's machine listed.
 */
function listFiles(dir: string, skipFolder: (rel: string) => boolean): Dirent[] {
  const list = (folder: string): Dirent[] => readdirSync(folder, { withFileTypes: true });
  const files: Dirent[] = [];
  const folders: [string, Dirent[]][] = [[dir, list(dir)]];
  for (let next = folders.pop(); next; next = folders.pop()) {
    const [folder, entries] = next;
    for (const entry of entries) {
      if (entry.isFile()) files.push(entry);
      const path = join(folder, entry.name);
      if (entry.isDirectory() && !skipFolder(posixRel(dir, path))) folders.push([path, list(path)]);
    }
  }
  return files;
}

/**
 * Every file under `dir` (recursively) → its text, keyed by a POSIX path relative to `dir`. Read synchronously: a
 * test's folder is small and in memory (the runner's TMPDIR), and each asynchronous read (open, stat, read and
 * close, each a trip to the thread pool and back) cost far more CPU than the read itself: a folder of 25 notes took
 * 7.7-10.8 ms of CPU read so, 0.5 ms read synchronously, and the model test reads its machines' folders about
 * 2,600 times in each half.
 */
export async function readTree(dir: string, options: TreeOptions = {}): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let entries;
  try {
    entries = listFiles(dir, options.skipFolder ?? (() => false));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  for (const entry of entries) {
    const abs = join(entry.parentPath, entry.name);
    const rel = posixRel(dir, abs);
    if (options.skip?.(rel)) continue;
    // A file removed between the listing and the read (a daemon at work beside the soak) is not there.
    try {
      out.set(rel, readFileSync(abs, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return out;
}

/** The Markdown files of the synced folder (conflict copies included), kbsync's state folder left out. */
export const localFiles = (root: string): Promise<Map<string, string>> =>
  readTree(root, { skipFolder: (rel) => rel === '.kbsync', skip: (rel) => !rel.endsWith('.md') });

export const isConflictCopy = (rel: string): boolean => isConflictCopyName(rel.split('/').pop() ?? rel);

/** The ledger's document rows, read without taking the lock (call only while no kbsync runs). */
export function ledgerRows(f: Pick<SyncFixture, 'root'>): readonly DocumentSummary[] {
  const ledger = openLedger(join(f.root, '.kbsync', 'ledger.sqlite'), { readonly: true });
  try {
    return ledger.documents.allSummaries();
  } finally {
    ledger.close();
  }
}

/** What a document reads as remotely: the stored Markdown, and the Markdown kbsync makes of its blocks (as its client parses them). */
export function remoteReadings(doc: DumpedNode): string[] {
  const blocks = (doc.blocks ?? []).map((block, i) => parseBlock(block as unknown as RawBlock, i));
  return [normaliseBody(doc.markdown ?? ''), normaliseBody(blocksToMarkdown(blocks))];
}

export type ConvergenceOptions = {
  /**
   * Held work is allowed: a row whose file is gone while the document stays (a local delete of a document
   * kbsync may not delete), and a file whose change waits for a person (an overwrite held as FLATTEN or
   * HIDDEN_EDIT, an open conflict), so it differs from its document.
   */
  readonly allowHeld?: boolean;
};

/**
 * Both sides agree: every synced file's body equals its document's body, every Markdown file (but
 * conflict copies) has a ledger row and a document, and every remote document belongs to one row.
 */
export async function convergenceProblems(f: SyncFixture, options: ConvergenceOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const files = await localFiles(f.root);
  const rows = ledgerRows(f);
  const docs = new Map(f.remoteDocs().map((doc) => [doc.dentryUuid, doc]));
  const rowPaths = new Set(rows.map((row) => row.path));
  for (const row of rows) {
    const doc = docs.get(row.docKey);
    const text = files.get(row.path);
    if (!doc) problems.push(`${row.path}: its document ${row.docKey} is gone remotely but the ledger still pairs them`);
    if (text === undefined) {
      // A document only a person can delete stays with its row, and the run that said so succeeded (held.ts).
      const leftToAPerson = row.heldCode !== null && LEFT_TO_A_PERSON.has(row.heldCode);
      if (!doc || !(options.allowHeld || leftToAPerson)) problems.push(`${row.path}: in the ledger but no file`);
      continue;
    }
    // A file linked with no shared history and a different body stays apart until the user edits it (a conflict copy holds the other side).
    const waits = options.allowHeld === true && row.heldCode !== null;
    if (doc && !row.conflict && !waits && !remoteReadings(doc).includes(normaliseBody(text))) {
      problems.push(`${row.path}: file and document differ\n--- file\n${normaliseBody(text)}\n--- remote\n${normaliseBody(doc.markdown ?? '')}`);
    }
  }
  for (const path of files.keys()) {
    if (!isConflictCopy(path) && !rowPaths.has(path)) problems.push(`${path}: a file with no document`);
  }
  return [...problems, ...duplicateProblems(f, rows)];
}

/**
 * No duplicate documents: one ledger row per document and one document per row, and no remote
 * document left unpaired (after a converging run, an unpaired document is a second copy of a file).
 */
export function duplicateProblems(f: SyncFixture, rows: readonly DocumentSummary[] = ledgerRows(f)): string[] {
  const problems: string[] = [];
  const byKey = new Map<string, string[]>();
  for (const row of rows) byKey.set(row.docKey, [...(byKey.get(row.docKey) ?? []), row.path]);
  for (const [key, paths] of byKey) if (paths.length > 1) problems.push(`document ${key} is paired with ${paths.length} files: ${paths.join(', ')}`);
  for (const doc of f.remoteDocs()) {
    if (!byKey.has(doc.dentryUuid)) problems.push(`remote document "${doc.title}" (${doc.dentryUuid}) belongs to no file: a duplicate or a document never pulled`);
  }
  return problems;
}

/** Does some Markdown file of the folder (conflict copies included) contain `needle`? */
export async function locallyPresent(f: Pick<SyncFixture, 'root'>, needle: string): Promise<boolean> {
  for (const text of (await localFiles(f.root)).values()) if (text.includes(needle)) return true;
  return false;
}

export const remotelyPresent = (f: SyncFixture, needle: string): boolean => f.remoteDocs().some((doc) => (doc.markdown ?? '').includes(needle));

/**
 * One more sync must change nothing: exit 0, no write call to the service, no local file changed,
 * added or removed. Returns the problems (and leaves the call counter reset).
 */
export async function steadyProblems(f: SyncFixture, options: { readonly allowHeld?: boolean } = {}): Promise<string[]> {
  const before = await localFiles(f.root);
  f.em.admin.resetCalls();
  const run = await syncOnce(f);
  const problems: string[] = [];
  const expectedCode = options.allowHeld ? [0, 1] : [0];
  if (!expectedCode.includes(run.code)) problems.push(`steady run exited ${String(run.code)}: ${run.stderr.slice(0, 400)}`);
  // `failed` also counts held and refused files; a steady run may hold (allowHeld), never fail an action.
  if (run.report && run.report.results.some((r) => !r.ok)) problems.push(`steady run had failures: ${JSON.stringify(run.report.results.filter((r) => !r.ok))}`);
  const writes = writeCalls(f.em.admin.calls());
  if (Object.keys(writes).length > 0) problems.push(`steady run wrote to the service: ${JSON.stringify(writes)}`);
  const after = await localFiles(f.root);
  for (const [path, text] of after) if (before.get(path) !== text) problems.push(`steady run changed ${path}`);
  for (const path of before.keys()) if (!after.has(path)) problems.push(`steady run removed ${path}`);
  return problems;
}
