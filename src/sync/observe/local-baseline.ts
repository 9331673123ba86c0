import type { DocumentSummary, Ledger, SummaryCursor } from '../../ledger/index.js';
import type { LocalFile, LocalScan } from '../../local/index.js';
import { isSettled, settleRowOf, type SettlePlace } from '../decide/settled.js';
import type { LocalEntry } from '../decide/types.js';
import { statUnchanged } from './observe-local.js';

/**
 * What a run works out for every file before it reads any, from its scan and the ledger's rows alone: the
 * entries of files whose stat matches their row (their hash is the row's: not read), the files to read, the
 * paths scanned, the rows whose file the scan did not list, and the files plan() may leave out (settled).
 */
export type LocalBaseline = {
  /** Files whose size, mtime and inode match their row, with their entries: the run's own map (it adds the files it reads). */
  readonly matched: Map<string, LocalEntry>;
  /** Files to read (new, or changed since their row was written), in scan order. */
  readonly unmatched: readonly LocalFile[];
  readonly seen: ReadonlySet<string>;
  /** Rows whose file the scan did not list. */
  readonly unseen: readonly string[];
  /** Matched files whose row plan() has nothing to do for (decide/settled.ts), if the run settles any. */
  readonly settled: ReadonlySet<string>;
  /** The rows that are not settled (in the rows' order when worked out afresh). */
  readonly rest: ReadonlyMap<string, DocumentSummary>;
};

/** A baseline as the memo keeps it, brought up to date in place. */
type Kept = {
  readonly matched: Map<string, LocalEntry>;
  readonly unmatched: Map<string, LocalFile>;
  readonly seen: ReadonlySet<string>;
  readonly unseen: readonly string[];
  readonly settled: Set<string>;
  readonly rest: Map<string, DocumentSummary>;
};

/** The baseline worked out for every file, rows settled against `place` (as recorded.ts settles them). */
export function localBaseline(scan: LocalScan, rows: ReadonlyMap<string, DocumentSummary>, place: SettlePlace): LocalBaseline {
  const kept = workedOut(scan, rows, place);
  return { ...kept, unmatched: [...kept.unmatched.values()] };
}

function workedOut(scan: LocalScan, rows: ReadonlyMap<string, DocumentSummary>, place: SettlePlace): Kept {
  const matched = new Map<string, LocalEntry>();
  const unmatched = new Map<string, LocalFile>();
  const seen = new Set<string>();
  const settled = new Set<string>();
  for (const file of scan.files) {
    seen.add(file.path);
    const row = rows.get(file.path);
    if (!statUnchanged(row, file)) {
      unmatched.set(file.path, file);
      continue;
    }
    matched.set(file.path, entryOf(file, row));
    if (isSettled(settleRowOf(row), place)) settled.add(file.path);
  }
  const unseen: string[] = [];
  const rest = new Map<string, DocumentSummary>();
  for (const [path, row] of rows) {
    if (!seen.has(path)) unseen.push(path);
    if (!settled.has(path)) rest.set(path, row);
  }
  return { matched, unmatched, seen, unseen, settled, rest };
}

const entryOf = (file: LocalFile, row: DocumentSummary): LocalEntry => ({ path: file.path, hash: row.localHash, ino: file.ino });

/**
 * The daemon's baseline, kept from one local cycle to the next: a save changes one file and one or two rows,
 * and working out every file's entry, whether it is settled and the sets of paths again for all 10,000 was
 * most of the CPU between the save and its overwrite. The kept baseline is brought up to date, in place, for
 * the files whose scan entry is another object (ScanCache replaces a re-stat'ed file in place; any walk makes
 * new ones) and the rows the kept summaries re-read since (DocumentsRepo.summaryChanges). Everything is
 * worked out again when the scan lists other paths, the ledger's rows were read anew (a rename, a delete,
 * another connection's commit), the place rows are settled against changed (layout, the ledger's folders),
 * or more changed than a fresh start costs. Each run gets copies of what changes in place.
 */
export class BaselineMemo {
  #last:
    | {
        readonly files: readonly LocalFile[];
        readonly rows: ReadonlyMap<string, DocumentSummary>;
        readonly cursor: SummaryCursor;
        readonly place: string;
        readonly kept: Kept;
        /** Where each file sits in the scan (the files to read are handed out in scan order). */
        readonly index: ReadonlyMap<string, number>;
      }
    | undefined;

  baseline(ledger: Ledger, scan: LocalScan, rows: ReadonlyMap<string, DocumentSummary>, place: SettlePlace): LocalBaseline {
    const changes = ledger.documents.summaryChanges(this.#last?.cursor);
    const key = placeKey(place);
    const last = this.#last;
    const changed = last && changes?.paths && last.rows === rows && last.place === key ? changedPaths(last.files, scan.files, changes.paths) : undefined;
    if (!changes || !last || changed === undefined) {
      const kept = workedOut(scan, rows, place);
      const index = new Map(scan.files.map((file, i) => [file.path, i]));
      this.#last = changes && { files: scan.files, rows, cursor: changes.cursor, place: key, kept, index };
      return handedOut(kept, index);
    }
    patch(last.kept, changed, scan, rows, place, last.index);
    this.#last = { ...last, files: scan.files, cursor: changes.cursor };
    return handedOut(last.kept, last.index);
  }
}

/** The place rows are settled against, as a key: the same key, the same answer for an unchanged row. */
const placeKey = (place: SettlePlace): string => JSON.stringify([place.layout, [...place.folderIds]]);

/** Paths whose file object or row changed; undefined when the scan lists other paths (or too much changed to patch). */
function changedPaths(before: readonly LocalFile[], now: readonly LocalFile[], rows: readonly string[]): Set<string> | undefined {
  if (before.length !== now.length) return undefined;
  const changed = new Set(rows);
  for (let i = 0; i < now.length; i++) {
    const file = now[i] as LocalFile;
    if (file === before[i]) continue;
    if (file.path !== before[i]?.path) return undefined;
    changed.add(file.path);
  }
  // Past a few hundred, patching costs what a fresh start does.
  return changed.size > 256 ? undefined : changed;
}

/** The kept baseline with the changed paths worked out again (the paths scanned, and so the unseen rows, are the same). */
function patch(kept: Kept, changed: ReadonlySet<string>, scan: LocalScan, rows: ReadonlyMap<string, DocumentSummary>, place: SettlePlace, index: ReadonlyMap<string, number>): void {
  for (const path of changed) {
    const at = index.get(path);
    const file = at === undefined ? undefined : scan.files[at];
    const row = rows.get(path);
    kept.matched.delete(path);
    kept.unmatched.delete(path);
    kept.settled.delete(path);
    if (file && statUnchanged(row, file)) {
      kept.matched.set(path, entryOf(file, row));
      if (isSettled(settleRowOf(row), place)) kept.settled.add(path);
    } else if (file) kept.unmatched.set(path, file);
    if (row && !kept.settled.has(path)) kept.rest.set(path, row);
    else kept.rest.delete(path);
  }
}

/** What a run gets of the kept baseline: its own copies of what changes in place, the files to read in scan order. */
function handedOut(kept: Kept, index: ReadonlyMap<string, number>): LocalBaseline {
  const byScan = (a: LocalFile, b: LocalFile): number => (index.get(a.path) ?? 0) - (index.get(b.path) ?? 0);
  return { ...kept, matched: new Map(kept.matched), unmatched: [...kept.unmatched.values()].sort(byScan), settled: new Set(kept.settled), rest: new Map(kept.rest) };
}
