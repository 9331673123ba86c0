import { createHash } from 'node:crypto';
import type { DocumentSummary, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { sharedImagesOf } from '../images/sent.js';
import type { DocRecord, StateRecord } from '../remote-state/codec.js';
import { foldState, recordsOf } from '../remote-state/state.js';
import type { LoadedState, RemoteStateStore } from '../remote-state/store.js';

/** What the shared state should say of one ledger row. */
export function stateRecordOf(row: DocumentSummary, members: DocRecord['mem'] = [], body?: { readonly lossyBase: boolean; readonly hiddenEdit: string | null; readonly agreedAt: number }): DocRecord {
  return {
    t: 'doc',
    p: row.path,
    k: row.docKey,
    n: row.nodeId,
    h: row.localHash,
    rb: row.remoteBlocksHash,
    m: row.remoteModifiedTime,
    ...(row.recheck ? { r: 1 as const } : {}),
    o: row.origin,
    ...(members.length > 0 ? { mem: members } : {}),
    ...sharedImagesOf(row.imagesSent),
    // The document holds more than the source: a colleague's edit read as plain text, or one reads cannot show at all.
    ...(body?.lossyBase || (body && body.hiddenEdit !== null) ? { l: 1 as const } : {}),
    ...(body && body.agreedAt > 0 ? { a: body.agreedAt } : {}),
  };
}

/** What a record says, members aside (they change only with the file, which changes the record anyway). */
export const hashOf = (record: DocRecord): string => {
  const { mem: _members, ...rest } = record;
  // Images only count when there are some, so rows published before images were tracked keep their hash.
  const fields = [rest.p, rest.k, rest.n, rest.h, rest.rb, rest.m, rest.o, ...(rest.im ? [rest.im] : [])];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 16);
};

/**
 * The hash a row is published under, kept per summary object: a summary never changes, and the daemon
 * keeps the same objects for the rows it did not write (DocumentsRepo.keepSummaries), so after a push only
 * the rows just written are hashed again, not all 10,000 (two sha256 each, about 85 ms a cycle).
 */
const hashes = new WeakMap<DocumentSummary, string>();

function publishedHashOf(row: DocumentSummary): string {
  let hash = hashes.get(row);
  if (hash === undefined) {
    const record = stateRecordOf(row);
    // A re-check that only learnt the modified time of our own write ('' until then) changes nothing another
    // machine needs: with '' it re-checks once itself. Republishing it would cost every push a second append.
    hash = row.publishedRecord === hashOf({ ...record, m: '' }) ? row.publishedRecord : hashOf(record);
    hashes.set(row, hash);
  }
  return hash;
}

/**
 * Brings the knowledge base's shared state up to this ledger, after a run: one append of the records that
 * changed (new documents, new versions, moves, deletions) and one of the sources whose text changed.
 * Zero calls when nothing changed. With the state read this run (`loaded`), entries it already holds are
 * only marked, and rows it lacks (another writer's compaction, a state deleted by hand) are published
 * again; a newer record of another machine for the same path is never overwritten by an older one.
 */
export async function publishState(deps: {
  readonly ledger: Ledger;
  readonly store: RemoteStateStore;
  readonly logger: Logger;
  readonly loaded: LoadedState | undefined;
  /** Documents this run stopped tracking (deleted, moved away, forgotten): docKey → the path they had. */
  readonly removed: ReadonlyMap<string, string>;
}): Promise<{ readonly records: number; readonly sources: number }> {
  const { ledger, store, loaded } = deps;
  const records: StateRecord[] = [];
  const sources: { hash: string; text: string }[] = [];
  const marks: { path: string; record: string; source: string }[] = [];
  const statePathOf = new Map([...(loaded?.state.entries.values() ?? [])].map((entry) => [entry.k, entry.p]));

  for (const row of ledger.documents.allSummaries()) {
    const hash = publishedHashOf(row);
    const held = loaded?.state.entries.get(row.path);
    if (row.publishedRecord === hash) {
      // Published as it is. Only a state read this run can show it went missing (a compaction race, a
      // state deleted by hand); another machine's newer record for the path, or a move, is left standing.
      const lost = loaded !== undefined && held === undefined && !statePathOf.has(row.docKey);
      if (!lost) continue;
    }
    const known = held !== undefined && hashOf({ t: 'doc', ...held }) === hash;
    const sourceKnown = held?.h === row.localHash || row.publishedSource === row.localHash;
    if (!known || !sourceKnown) {
      const full = ledger.documents.get(row.path);
      if (!known) records.push(stateRecordOf(row, full?.members ?? [], full));
      if (!sourceKnown && full) sources.push({ hash: row.localHash, text: full.baseMarkdown });
    }
    marks.push({ path: row.path, record: hash, source: row.localHash });
  }
  for (const [docKey, path] of deps.removed) {
    const entry = loaded?.state.entries.get(path);
    if (!loaded || entry?.k === docKey || statePathOf.get(docKey) === path) records.push({ t: 'gone', p: path, k: docKey });
  }
  // Image URLs uploaded here: every machine and CI run reuses them instead of uploading again.
  const images = ledger.images.unpublished();
  for (const image of images) if (loaded?.state.images.get(image.key) !== image.url) records.push({ t: 'img', k: image.key, u: image.url });
  for (const folder of ledger.folders.all()) {
    if (folder.path === '' || folder.nodeId === null || !loaded || loaded.state.folders.has(folder.path)) continue;
    records.push({ t: 'dir', p: folder.path, tn: folder.treeNodeId, n: folder.nodeId });
  }

  if (records.length > 0 || sources.length > 0) await store.publish(records, sources);
  ledger.transaction(() => {
    for (const mark of marks) ledger.documents.update(mark.path, { publishedRecord: mark.record, publishedSource: mark.source });
    ledger.images.markPublished(images.map((image) => image.key));
  });
  if (loaded && records.length > 0) {
    const live = recordsOf(foldState([...recordsOf(loaded.state), ...records]));
    await store.compact(loaded, live).catch((error: unknown) => deps.logger.warn({ err: error }, 'compacting the shared state failed; it stays as it is and is tried again later'));
  }
  return { records: records.length, sources: sources.length };
}
