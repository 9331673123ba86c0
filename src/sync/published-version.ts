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
): (record: { readonly docKey: string; readonly localHash: string }, load: boolean) => Promise<PublishedVersion | undefined> {
  let state: Promise<SharedState | undefined> | undefined = shared ? Promise.resolve(shared) : undefined;
  return async (record, load) => {
    if (!state && !load) return undefined;
    state ??= store ? store.load().then((loaded) => loaded.state, () => undefined) : Promise.resolve(undefined);
    const entries = (await state)?.entries;
    if (!store || !entries) return undefined;
    let entry;
    for (const candidate of entries.values()) if (candidate.k === record.docKey) entry = candidate;
    // This machine's own lossy record tells nothing new; any other (a newer version, or this very text as its
    // writer published it exactly) is worth its source.
    if (!entry || (entry.h === record.localHash && entry.l === 1)) return undefined;
    const text = (await store.sources(new Set([entry.h])).catch(() => new Map<string, string>())).get(entry.h);
    return text === undefined ? undefined : { text, remoteBlocksHash: entry.rb, modifiedTime: entry.m, exact: entry.l !== 1, agreedAt: entry.a ?? 0 };
  };
}
