import type { Ledger } from '../../ledger/index.js';
import { describeJunk, hasJunk } from '../../remote-state/junk.js';
import type { StateRecord, TeamRecord } from '../../remote-state/records.js';
import type { LoadedState, RemoteStateStore } from '../../remote-state/store.js';
import { clocksOf, hashOf, markOf, stateRecordOf } from './publish.js';

/**
 * `kbsync state rewrite`: the shared state written anew into fresh documents from this machine's ledger
 * (which wins for the files it knows), keeping what the verified part of the old state says of other
 * machines' files. Its records carry this writer's newest clock, so they stand over every older one,
 * damaged, stale or forged. The old documents are retired: deleted, after whatever is appended to them
 * meanwhile is copied on, by the first run once the grace period is over (compaction.ts).
 */
export async function rewriteState(
  ledger: Ledger,
  /** The state read (`from`) and the one written (`to`): the same store, but for a key rotation (key-rotation.ts), whose new state is signed with the new key. */
  stores: { readonly from: RemoteStateStore; readonly to: RemoteStateStore },
  /** The team's settings the new state publishes, over those the old one held (team.ts): this machine's configuration decides those it gives. */
  team: (held: TeamRecord | undefined) => TeamRecord,
): Promise<{ readonly entries: number; readonly sources: number; readonly junk: string | undefined; readonly team: TeamRecord; readonly old: LoadedState }> {
  const { from, to: store } = stores;
  const old = await from.load();
  const rows = ledger.documents.allRecords();
  const mine = new Set(rows.flatMap((row) => [row.path, row.docKey as string]));
  const records: StateRecord[] = rows.map((row) => stateRecordOf(row, row.members));
  for (const entry of old.state.entries.values()) {
    if (mine.has(entry.p) || mine.has(entry.k)) continue;
    const { c: _c, w: _w, ...rest } = entry;
    records.push({ t: 'doc', ...rest });
  }
  // Every image URL either side knows: no machine uploads them again.
  const images = new Map<string, string>([...old.state.images, ...ledger.images.all().map((image) => [image.key, image.url] as const)]);
  for (const [k, u] of images) records.push({ t: 'img', k, u });
  for (const folder of ledger.folders.all()) if (folder.path !== '' && folder.nodeId !== null) records.push({ t: 'dir', p: folder.path, tn: folder.treeNodeId, n: folder.nodeId });
  const settings = team(old.state.team);
  records.push(settings);
  const theirs = new Set([...old.state.entries.values()].filter((entry) => !mine.has(entry.p) && entry.h !== '').map((entry) => entry.h));
  const kept = await from.sources(theirs);
  const sources = [...new Map([...rows.map((row) => [row.localHash, row.baseMarkdown] as const), ...kept]).entries()].map(([hash, text]) => ({ hash, text }));
  const superseded = (await from.documents()).map((doc) => doc.docKey as string);
  // The old documents' creation ids, in the new state: whoever finishes their retirement deletes them by a record its key verifies.
  for (const docKey of superseded) {
    const nodeId = old.state.journals.get(docKey);
    if (nodeId !== undefined) records.push({ t: 'journal', k: docKey, n: nodeId });
  }
  const places = await store.placeSources(sources, { fresh: true });
  const written = await store.publish([...records, ...places], [], { fresh: true });
  // Last, once the new documents hold everything: a crash before it leaves both, read together (the new records win).
  await store.publish([{ t: 'retire', docs: superseded }]);
  const clocks = clocksOf(written);
  ledger.transaction(() => {
    for (const row of rows) ledger.documents.update(row.path, { publishedRecord: markOf(hashOf(stateRecordOf(row)), clocks.get(row.path) ?? 0), publishedSource: row.localHash });
    ledger.images.markPublished([...images.keys()]);
  });
  return { entries: records.filter((r) => r.t === 'doc').length, sources: sources.length, junk: hasJunk(old.junk) ? describeJunk(old.junk) : undefined, team: settings, old };
}
