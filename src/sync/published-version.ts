import type { RemoteStateStore } from '../remote-state/store.js';
import type { SharedState } from '../remote-state/state.js';
import type { PublishedVersion } from './decide/body.js';

/**
 * What another kbsync writer last published of a document (the shared state's entry for it and its kept
 * source), asked only for a document that changed remotely: a merge then works from that Markdown, not from
 * the service's plain reading. The state is read at most once per run, and only when first asked; a state
 * that cannot be read leaves the merge to the plain reading, as before there was a state.
 */
export function publishedVersions(
  store: RemoteStateStore | undefined,
  shared: SharedState | undefined,
): (record: { readonly docKey: string; readonly localHash: string; readonly lossyBase: boolean }, load: boolean) => Promise<PublishedVersion | undefined> {
  let state: Promise<SharedState | undefined> | undefined = shared ? Promise.resolve(shared) : undefined;
  return async (record, load) => {
    if (!state && !load) return undefined;
    state ??= store ? store.load().then((loaded) => loaded.state, () => undefined) : Promise.resolve(undefined);
    const entries = (await state)?.entries;
    if (!store || !entries) return undefined;
    let entry;
    for (const candidate of entries.values()) if (candidate.k === record.docKey) entry = candidate;
    // A lossy record of this very text tells nothing new to a machine whose record is lossy too (its own, say);
    // any other is worth its source: a newer version, this very text as its writer published it exactly, or
    // as another writer found the document holds more than it (model seed 50013).
    if (!entry || (entry.h === record.localHash && entry.l === 1 && record.lossyBase)) return undefined;
    const text = (await store.sources(new Set([entry.h])).catch(() => new Map<string, string>())).get(entry.h);
    return text === undefined ? undefined : { text, remoteBlocksHash: entry.rb, modifiedTime: entry.m, exact: entry.l !== 1, agreedAt: entry.a ?? 0, path: entry.p };
  };
}
