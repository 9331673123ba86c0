import type { DocumentStat, DocumentSummary, FolderRecord, Ledger } from '../../ledger/index.js';
import type { LocalScan } from '../../local/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import { isSettled, settleRowOf, type SettlePlace } from '../decide/settled.js';
import type { Layout } from '../decide/types.js';
import { statUnchanged, type RowStat } from './observe-local.js';
import type { LocalBaseline } from './local-baseline.js';

/**
 * The ledger's rows as a run first reads them. A run that may list nothing (a push) reads only each row's
 * stat (`stats`): when it then lists nothing, full summaries are read only for the rows plan() must look at,
 * not for every synced file. Any other run, and the daemon (whose summaries are kept in memory between its
 * cycles), reads every summary at once (`full`).
 */
type LedgerRows =
  | { readonly stats: ReadonlyMap<string, DocumentStat>; readonly full?: undefined }
  | { readonly stats: ReadonlyMap<string, RowStat>; readonly full: ReadonlyMap<string, DocumentSummary> };

/**
 * Whether a run reads narrow rows, and so may leave settled files out of its plan (and take or record a
 * settled tree, settled-tree.ts): one that may list nothing, over a ledger that does not keep its summaries
 * in memory (the daemon's does, and reads them whole).
 */
export function readsNarrow(ledger: Ledger | undefined, listRemote: 'always' | 'if-needed' | 'never'): ledger is Ledger {
  return ledger !== undefined && listRemote === 'if-needed' && !ledger.documents.keepsSummaries;
}

export function readRows(ledger: Ledger | undefined, narrow: boolean): LedgerRows {
  if (ledger && narrow) {
    const stats = new Map<string, DocumentStat>();
    for (const row of ledger.documents.allStats()) stats.set(row.path, row);
    return { stats };
  }
  const full = ledger?.documents.summariesByPath() ?? new Map<string, DocumentSummary>();
  return { stats: full, full };
}

/** Above this many rows to read in full, one query of every summary costs less than one naming each row. */
const BY_NAME = 512;

/**
 * The summaries plan() needs, and the files it may leave out (`settled`, see decide/settled.ts). Files are
 * settled only when `settle` says the run lists nothing and every local file is recorded. Rows read in full
 * (the daemon's, kept in memory) are settled the same way: a save then plans the saved file, not all 10,000,
 * which was most of the time from the save to the service.
 */
export function recordedRows(
  ledger: Ledger | undefined,
  rows: LedgerRows,
  scan: LocalScan,
  options: {
    readonly settle: boolean;
    readonly layout: Layout;
    readonly folders: readonly FolderRecord[];
    readonly unsettled?: ReadonlySet<string>;
    /** The settled files and the other rows, worked out already from rows read in full (local-baseline.ts). */
    readonly baseline?: Pick<LocalBaseline, 'settled' | 'rest'>;
  },
): { summaries: ReadonlyMap<string, DocumentSummary>; settled: ReadonlySet<string> } {
  if (ledger && rows.full && options.baseline) return fromBaseline(rows.full, options.settle ? options.baseline : undefined, options.unsettled);
  const settled = new Set<string>();
  if (!ledger) return { summaries: rows.full ?? new Map(), settled };
  if (options.settle) {
    const where = settlePlace(options.layout, options.folders);
    for (const file of scan.files) {
      const row = rows.stats.get(file.path);
      // A file a person released (kbsync resolve) is planned whatever its row says.
      if (statUnchanged(row, file) && isSettled(rows.full ? settleRowOf(row as DocumentSummary) : (row as DocumentStat), where) && !options.unsettled?.has(file.path)) settled.add(file.path);
    }
  }
  if (rows.full) {
    if (settled.size === 0) return { summaries: rows.full, settled };
    const summaries = new Map<string, DocumentSummary>();
    for (const [path, summary] of rows.full) if (!settled.has(path)) summaries.set(path, summary);
    return { summaries, settled };
  }
  const summaries = new Map<string, DocumentSummary>();
  const rest: string[] = [];
  for (const path of rows.stats.keys()) if (!settled.has(path)) rest.push(path);
  const read = rest.length > BY_NAME ? ledger.documents.allSummaries().filter((summary) => !settled.has(summary.path)) : ledger.documents.summaries(rest);
  for (const summary of read) summaries.set(summary.path, summary);
  return { summaries, settled };
}

/** Where a run that lists nothing settles rows: the layout and the ledger's folders (made once per run, not per row). */
export function settlePlace(layout: Layout, folders: readonly FolderRecord[]): SettlePlace {
  const folderIds = new Map<string, TreeNodeId>();
  for (const folder of folders) folderIds.set(folder.path, folder.treeNodeId);
  return { layout, folderIds, remote: undefined };
}

/** The rows a baseline settled and left (none settled without one), but for the rows a person released. */
function fromBaseline(
  full: ReadonlyMap<string, DocumentSummary>,
  baseline: Pick<LocalBaseline, 'settled' | 'rest'> | undefined,
  unsettled: ReadonlySet<string> | undefined,
): { summaries: ReadonlyMap<string, DocumentSummary>; settled: ReadonlySet<string> } {
  if (!baseline || baseline.settled.size === 0) return { summaries: full, settled: new Set() };
  const released = [...(unsettled ?? [])].filter((path) => baseline.settled.has(path));
  if (released.length === 0) return { summaries: baseline.rest, settled: baseline.settled };
  const settled = new Set(baseline.settled);
  const summaries = new Map(baseline.rest);
  for (const path of released) {
    settled.delete(path);
    const row = full.get(path);
    if (row) summaries.set(path, row);
  }
  return { summaries, settled };
}
