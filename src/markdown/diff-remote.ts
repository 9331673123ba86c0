import type { Block } from '../model/blocks.js';
import { pairScore } from './align.js';
import { changedBetweenReads, contentKey, contentOfBlock } from './normalise.js';
import { alignSequences } from './sequence.js';

/** How the remote blocks differ from the remote base: exact, both lists come from the service. */
export type RemoteDiff = {
  /** For each remote-base block: the remote block it is now, or null when deleted. */
  readonly baseToRemote: readonly (number | null)[];
  /** For each remote-base block: true when it is still there but says something else. */
  readonly changed: readonly boolean[];
  /** For each remote block: the remote-base block it was, or null when new. */
  readonly remoteToBase: readonly (number | null)[];
  /** Anything at all changed, added or removed. */
  readonly any: boolean;
};

/**
 * Block ids are stable between reads, so they decide when any survive. An overwrite by someone else
 * gives every block a fresh id; then content decides (same content, else same type in between).
 */
export function diffRemote(remoteBase: readonly Block[], remote: readonly Block[]): RemoteDiff {
  const baseIds = new Set(remoteBase.map((block) => block.id as string));
  const remoteIds = new Set(remote.map((block) => block.id as string));
  const byId = remote.some((block) => baseIds.has(block.id));
  const a = remoteBase.map((block) => ({ block, content: contentOfBlock(block), key: contentKey(contentOfBlock(block)) }));
  const b = remote.map((block) => ({ block, content: contentOfBlock(block), key: contentKey(contentOfBlock(block)) }));
  const pairs = alignSequences(a, b, {
    keyA: (x) => (byId ? `id:${x.block.id}` : x.key),
    keyB: (y) => (byId ? `id:${y.block.id}` : y.key),
    score: (x, y) => {
      if (byId) {
        if (x.block.id === y.block.id) return 1000;
        // A block whose id vanished on one side may still be the same content under a new id.
        return !remoteIds.has(x.block.id) && !baseIds.has(y.block.id) && x.key === y.key ? 10 : 0;
      }
      return x.key === y.key ? 1000 : x.block.type === y.block.type ? pairScore(x.content, y.content) : 0;
    },
  });
  const baseToRemote: (number | null)[] = a.map(() => null);
  const changed = a.map(() => false);
  const remoteToBase: (number | null)[] = b.map(() => null);
  for (const [i, j] of pairs) {
    baseToRemote[i] = j;
    remoteToBase[j] = i;
    changed[i] = changedBetweenReads((a[i] as (typeof a)[number]).content, (b[j] as (typeof b)[number]).content);
  }
  const any = pairs.length !== a.length || pairs.length !== b.length || changed.some(Boolean);
  return { baseToRemote, changed, remoteToBase, any };
}
