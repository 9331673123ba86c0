import type { Block } from '../model/blocks.js';
import type { MergeState } from './merge-state.js';
import { contentOfBlock, sameReading } from './normalise.js';
import type { Segment } from './segments.js';

/** Where new blocks of each side go: after a base node (by index), or at the start (-1). */
export type InsertionPlan = {
  readonly localAt: ReadonlyMap<number, readonly number[]>;
  readonly remoteAt: ReadonlyMap<number, readonly Block[]>;
  /** Local insertions the remote made too (same place, same reading): nothing to push for them. */
  readonly twins: ReadonlySet<number>;
  /** Base nodes whose remote edit the local side already holds where the node was. */
  readonly resurrectedAlready: ReadonlySet<number>;
};

function add<T>(map: Map<number, T[]>, key: number, value: T): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}

/**
 * Local insertions attach to the base node before them; remote insertions (and remote blocks never
 * paired with a base node that changed) to the remote block before them that has a base node.
 *
 * The same block inserted on both sides at the same place is kept once: that happens when both sides
 * made the same addition, and when a merged body was written but its sync was not recorded (a crash):
 * the next merge sees the remote's additions again as local ones, and must not double them.
 */
export function planInsertions(state: MergeState): InsertionPlan {
  const localAt = new Map<number, number[]>();
  let anchor = -1;
  state.localDiff.localToBase.forEach((b, l) => {
    if (b !== null) anchor = b;
    else add(localAt, anchor, l);
  });

  // The nearest base node at or before b that is still in the local body: local insertions attach there.
  const surviving: number[] = [];
  state.base.segments.forEach((_, b) => surviving.push(state.localDiff.baseToLocal[b] != null ? b : (surviving[b - 1] ?? -1)));
  const used = new Set<number>();
  const twinOf = (b: number, block: Block): boolean => {
    const candidates = localAt.get(b < 0 ? -1 : (surviving[b] ?? -1)) ?? [];
    const twin = candidates.find((l) => !used.has(l) && sameReading((state.local.segments[l] as Segment).node, contentOfBlock(block)));
    if (twin === undefined) return false;
    used.add(twin);
    return true;
  };

  const remoteAt = new Map<number, Block[]>();
  anchor = -1;
  state.remote.forEach((block, r) => {
    const j = state.remoteDiff.remoteToBase[r];
    const b = j === null || j === undefined ? undefined : state.remoteBaseToBase.get(j);
    if (b !== undefined) {
      anchor = b;
      return;
    }
    if (state.isAdded(r) && !twinOf(anchor, block)) add(remoteAt, anchor, block);
  });

  const resurrectedAlready = new Set<number>();
  state.base.segments.forEach((_, b) => {
    const remote = state.remoteState(b);
    if (state.localDiff.baseToLocal[b] == null && remote.kind === 'changed' && twinOf(b, remote.block)) resurrectedAlready.add(b);
  });
  return { localAt, remoteAt, twins: used, resurrectedAlready };
}
