import type { DocRecord, StateRecord } from './codec.js';

/** What the knowledge base remembers of one synced file. */
export type StateEntry = Omit<DocRecord, 't'>;

/** The state after reading every record, oldest first: later records win, ids once learnt are kept. */
export type SharedState = {
  /** path → the file's entry. */
  readonly entries: ReadonlyMap<string, StateEntry>;
  /** docKey → creation nodeId: kept for as long as the document is known, whatever a later record says. */
  readonly nodeIds: ReadonlyMap<string, string>;
  /** Local folder path → its remote folder (and creation nodeId when kbsync made it). */
  readonly folders: ReadonlyMap<string, { readonly tn: string; readonly n: string | null }>;
  /** State documents' docKey → creation nodeId. */
  readonly journals: ReadonlyMap<string, string>;
  /** Image content key → the URL it was uploaded to (by any machine). */
  readonly images: ReadonlyMap<string, string>;
};

export const EMPTY_STATE: SharedState = { entries: new Map(), nodeIds: new Map(), folders: new Map(), journals: new Map(), images: new Map() };

/**
 * Folds records in the order they were written. Writers append without reading first (the service has no
 * conditional write), so the fold must give the same answer however their records interleave: a path's
 * latest record wins, a document is at one path only, and a creation nodeId is never lost to a record
 * from a machine that did not know it.
 */
export function foldState(records: Iterable<StateRecord>): SharedState {
  const entries = new Map<string, StateEntry>();
  const pathOfDoc = new Map<string, string>();
  const nodeIds = new Map<string, string>();
  const folders = new Map<string, { tn: string; n: string | null }>();
  const journals = new Map<string, string>();
  const images = new Map<string, string>();
  for (const record of records) {
    switch (record.t) {
      case 'doc': {
        const { t: _t, ...entry } = record;
        if (entry.n !== null) nodeIds.set(entry.k, entry.n);
        const previous = pathOfDoc.get(entry.k);
        if (previous !== undefined && previous !== entry.p) entries.delete(previous);
        const displaced = entries.get(entry.p);
        if (displaced && displaced.k !== entry.k) pathOfDoc.delete(displaced.k);
        entries.set(entry.p, { ...entry, n: entry.n ?? nodeIds.get(entry.k) ?? null });
        pathOfDoc.set(entry.k, entry.p);
        break;
      }
      case 'gone':
        if (entries.get(record.p)?.k === record.k) {
          entries.delete(record.p);
          pathOfDoc.delete(record.k);
        }
        break;
      case 'dir':
        folders.set(record.p, { tn: record.tn, n: record.n ?? folders.get(record.p)?.n ?? null });
        break;
      case 'journal':
        journals.set(record.k, record.n);
        break;
      case 'img':
        // The same content may have been uploaded twice (two machines at once): either URL shows it; the first stays.
        if (!images.has(record.k)) images.set(record.k, record.u);
        break;
      case 'reset':
        // Read before folding (see RemoteStateStore): which documents count at all.
        break;
    }
  }
  // A nodeId learnt after the entry was written (another machine's record) fills it in.
  for (const [path, entry] of entries) if (entry.n === null && nodeIds.has(entry.k)) entries.set(path, { ...entry, n: nodeIds.get(entry.k) ?? null });
  return { entries, nodeIds, folders, journals, images };
}

/** The records that say everything `state` knows: what a compaction writes. */
export function recordsOf(state: SharedState): StateRecord[] {
  return [
    ...[...state.journals].map(([k, n]): StateRecord => ({ t: 'journal', k, n })),
    ...[...state.folders].map(([p, f]): StateRecord => ({ t: 'dir', p, tn: f.tn, n: f.n })),
    ...[...state.entries.values()].map((entry): StateRecord => ({ t: 'doc', ...entry })),
    ...[...state.images].map(([k, u]): StateRecord => ({ t: 'img', k, u })),
  ];
}
