import { join } from 'node:path';
import type { ErrorCode } from '../../codes.js';
import { messageOf, KbsyncError } from '../../errors.js';
import type { DocumentSummary } from '../../ledger/index.js';
import { hashText, lstatOrNull, readTextFile, type LocalScan, type LocalFile, type TextFile } from '../../local/index.js';
import { createLimit } from '../../local/limit.js';
import { documentTitle, isUnpublished, splitText } from '../content/document-text.js';
import type { LocalEntry, Notice } from '../decide/types.js';

export type LocalProblem = {
  readonly path: string;
  readonly code: ErrorCode;
  readonly message: string;
  /** Said by an earlier run of this machine for these very bytes: listed, not failed again (observe/refusals.ts). */
  readonly repeated?: true;
};

export type LocalObservation = {
  readonly entries: Map<string, LocalEntry>;
  /** Texts read during the scan, so an action does not read the same file twice. */
  readonly texts: Map<string, TextFile>;
  /** Files that could not be used this run; the planner never sees them, so they are neither pushed nor deleted. */
  readonly problems: LocalProblem[];
  /** Paths to leave out of planning entirely (unreadable files and `publish: false`). */
  readonly excluded: Set<string>;
  /** Of those, the files whose front matter says `publish: false`: a link to one says so. */
  readonly unpublished: Set<string>;
  /** Files whose bytes are unchanged though their stat changed: only their fingerprint needs recording. */
  readonly touched: LocalFile[];
  /** What a person should know of the files read (front matter read key by key): said when a file is read, once per change. */
  readonly notices: Notice[];
};

/** What the stat fast path reads of a ledger row (a DocumentSummary or the narrower DocumentStat). */
export type RowStat = Pick<DocumentSummary, 'localHash' | 'statSize' | 'statMtimeMs' | 'statIno'>;

/** The stat fast path: size, mtime and inode as recorded, so the file's bytes are taken as the ledger's hash. */
export function statUnchanged(row: RowStat | undefined, file: LocalFile): row is RowStat {
  return row !== undefined && row.statSize === file.size && row.statMtimeMs === file.mtimeMs && row.statIno === file.ino;
}

/**
 * Turns a scan into planner entries. The stat fast path: a file whose size, mtime and inode match
 * the ledger is not read; its hash is the ledger's. Only new and changed files are read and hashed.
 */
export async function observeLocal(scan: LocalScan, summaries: ReadonlyMap<string, RowStat>): Promise<LocalObservation> {
  const entries = new Map<string, LocalEntry>();
  const changed: LocalFile[] = [];
  for (const file of scan.files) {
    const summary = summaries.get(file.path);
    // Decided synchronously: an unchanged file (nearly all of them in a no-op run) costs no promise and no queue slot.
    if (statUnchanged(summary, file)) entries.set(file.path, { path: file.path, hash: summary.localHash, ino: file.ino });
    else changed.push(file);
  }
  return readChanged(scan.root, entries, changed, summaries);
}

/**
 * The observation of a scan whose unchanged files' entries are known (`entries`, which the observation takes
 * as its own): the other files (`changed`, new or changed since their row) are read and hashed.
 */
export async function readChanged(root: string, entries: Map<string, LocalEntry>, changed: readonly LocalFile[], summaries: ReadonlyMap<string, RowStat>): Promise<LocalObservation> {
  const observation: LocalObservation = { entries, texts: new Map(), problems: [], excluded: new Set(), unpublished: new Set(), touched: [], notices: [] };
  const limit = createLimit(16);
  await Promise.all(changed.map((file) => limit(() => readEntry(root, file, summaries.get(file.path), observation))));
  return observation;
}

async function readEntry(root: string, file: LocalFile, summary: RowStat | undefined, into: LocalObservation): Promise<void> {
  let text: TextFile;
  try {
    text = await readTextFile(join(root, file.path), { displayPath: file.path });
  } catch (error) {
    // A file we cannot read is neither new nor deleted: leave it and its document alone.
    into.excluded.add(file.path);
    into.problems.push({ path: file.path, code: error instanceof KbsyncError ? error.code : 'FILE_UNREADABLE', message: messageOf(error) });
    return;
  }
  const hash = hashText(text.text);
  try {
    if (isUnpublished(text.text)) {
      into.excluded.add(file.path);
      into.unpublished.add(file.path);
      return;
    }
    into.texts.set(file.path, text);
    const lenient = splitText(text.text).lenient;
    if (lenient) into.notices.push({ path: file.path, code: 'FRONT_MATTER_LENIENT', message: lenientWords(lenient) });
    if (summary && summary.localHash === hash) into.touched.push(file);
    into.entries.set(file.path, {
      path: file.path,
      hash,
      ino: file.ino,
      // Known for every file read (new or changed): a new file is titled by it, a changed one is checked against its document's title.
      // An emptied file (a save caught half way, held as EMPTIED) asks for no new title: its name is no retitling.
      ...(text.text.trim() === '' ? {} : { title: documentTitle(text.text, file.path) }),
    });
  } catch (error) {
    // Malformed front matter: the user must fix it; until then nothing is pushed or deleted for this file.
    into.excluded.add(file.path);
    into.texts.delete(file.path);
    into.problems.push({ path: file.path, code: error instanceof KbsyncError ? error.code : 'FILE_INVALID', message: messageOf(error) });
  }
}

/** What is said of front matter read key by key (parseDocument): the note is published as the editor shows it. */
function lenientWords(lenient: { readonly left: readonly string[]; readonly error: string }): string {
  const left = lenient.left.length === 0 ? 'every key read (of two alike, the later)' : `left out: ${lenient.left.map((key) => `"${key}"`).join(', ')}`;
  return `its front matter is not valid YAML (${lenient.error}); the note is published as the editor shows it, the front matter read key by key (${left}), never sent. Fix the YAML to have every key read.`;
}

/**
 * Of the synced paths a complete scan did not list, those still on disk: left out by include/exclude or an
 * ignore file (or replaced by a symlink), not deleted. Excluding a file stops syncing it; it never deletes its document.
 */
export async function stillOnDisk(root: string, paths: readonly string[]): Promise<Set<string>> {
  const limit = createLimit(16);
  const present = new Set<string>();
  await Promise.all(
    paths.map((path) =>
      limit(async () => {
        if ((await lstatOrNull(join(root, path)).catch(() => null)) !== null) present.add(path);
      }),
    ),
  );
  return present;
}
