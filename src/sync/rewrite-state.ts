import type { Ledger } from '../ledger/index.js';
import type { StateRecord } from '../remote-state/codec.js';
import type { RemoteStateStore } from '../remote-state/store.js';
import { hashOf, stateRecordOf } from './publish-state.js';

/**
 * `kbsync state rewrite`: the shared state written anew from this machine's ledger (which wins for the
 * files it knows), keeping what the undamaged part of the old state says of other machines' files.
 * Damaged documents are superseded, never read again; the old documents are deleted where their creation
 * ids are known.
 */
export async function rewriteState(ledger: Ledger, store: RemoteStateStore): Promise<{ readonly entries: number; readonly sources: number; readonly damaged: readonly string[] }> {
  const old = await store.inspect();
  const rows = ledger.documents.allRecords();
  const mine = new Set(rows.flatMap((row) => [row.path, row.docKey as string]));
  const records: StateRecord[] = rows.map((row) => stateRecordOf(row, row.members));
  for (const entry of old.state.entries.values()) if (!mine.has(entry.p) && !mine.has(entry.k)) records.push({ t: 'doc', ...entry });
  // Every image URL either side knows: no machine uploads them again.
  const images = new Map([...old.state.images, ...ledger.images.all().map((image) => [image.key, image.url] as const)]);
  for (const [k, u] of images) records.push({ t: 'img', k, u });
  for (const folder of ledger.folders.all()) if (folder.path !== '' && folder.nodeId !== null) records.push({ t: 'dir', p: folder.path, tn: folder.treeNodeId, n: folder.nodeId });
  const theirs = new Set([...old.state.entries.values()].filter((entry) => !mine.has(entry.p)).map((entry) => entry.h));
  const kept = await store.sources(theirs).catch(() => new Map<string, string>());
  const sources = [...rows.map((row) => ({ hash: row.localHash, text: row.baseMarkdown })), ...[...kept].map(([hash, text]) => ({ hash, text }))];
  await store.rewrite(records, sources, old.state.journals);
  ledger.transaction(() => {
    for (const row of rows) ledger.documents.update(row.path, { publishedRecord: hashOf(stateRecordOf(row)), publishedSource: row.localHash });
    ledger.images.markPublished([...images.keys()]);
  });
  return { entries: records.filter((r) => r.t === 'doc').length, sources: sources.length, damaged: old.damaged };
}
