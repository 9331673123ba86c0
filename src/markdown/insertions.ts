import type { Block } from '../model/blocks.js';
import type { MergeState } from './merge-state.js';
import { contentKey, contentOfBlock, sameReading } from './normalise.js';
import { contentOf, type Segment } from './segments.js';
import { PLACEHOLDER_PREFIX } from './to-markdown.js';

/** Where new blocks of each side go: after a base node (by index), or at the start (-1). */
type InsertionPlan = {
  readonly localAt: ReadonlyMap<number, readonly number[]>;
  readonly remoteAt: ReadonlyMap<number, readonly Block[]>;
  /** Local nodes (added or edited) saying what the remote added at that place: nothing to push for them. */
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
 * A remote addition the local body already holds at that place (between the same neighbours) is kept
 * once: that happens when both sides made the same addition, and when a merged body was written but its
 * sync was not recorded (a crash): the next merge sees the remote's additions again as local ones, and
 * must not double them. The same goes for a remote edit of a block the local side deleted.
 */
export function planInsertions(state: MergeState): InsertionPlan {
  const localAt = new Map<number, number[]>();
  let anchor = -1;
  state.localDiff.localToBase.forEach((b, l) => {
    if (b !== null) anchor = b;
    else add(localAt, anchor, l);
  });

  const twinOf = twinFinder(state);
  const anchorOf = (r: number): number | undefined => {
    const j = state.remoteDiff.remoteToBase[r];
    return j === null || j === undefined ? undefined : state.remoteBaseToBase.get(j);
  };
  const nextAnchor: number[] = [];
  for (let r = state.remote.length - 1, next = state.base.segments.length; r >= 0; r--) {
    next = anchorOf(r) ?? next;
    nextAnchor[r] = next;
  }

  const remoteAt = new Map<number, Block[]>();
  anchor = -1;
  state.remote.forEach((block, r) => {
    const b = anchorOf(r);
    if (b !== undefined) anchor = b;
    else if (state.isAdded(r) && !twinOf.take(anchor, nextAnchor[r] ?? state.base.segments.length, block)) add(remoteAt, anchor, block);
  });

  const resurrectedAlready = new Set<number>();
  state.base.segments.forEach((_, b) => {
    const remote = state.remoteState(b);
    if (state.localDiff.baseToLocal[b] == null && remote.kind === 'changed' && twinOf.take(b, b, remote.block)) resurrectedAlready.add(b);
  });
  return { localAt, remoteAt, twins: twinOf.used, resurrectedAlready };
}

/**
 * Finds a local node that already says what a remote block says, between the local places of two base
 * nodes (`after` and `before`, widened to the nearest ones the local side kept unchanged). Only nodes the
 * local side added or edited qualify, each once.
 */
function twinFinder(state: MergeState) {
  const { baseToLocal, localToBase, unchanged } = state.localDiff;
  const count = state.base.segments.length;
  // Bounds are blocks the local side kept as they were: an edited block is a weaker landmark. So is a kept
  // block that reads like another block of the base (two identical HTML blocks, any two images): the local
  // diff may pair it with its look-alike, and a merge after a crash can pair it otherwise than the merge that
  // wrote the body did, which put the remote's additions where the look-alike was (found by the merge
  // property test: an addition doubled).
  const keys = state.base.segments.map((segment) => contentKey(segment.node));
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  const landmark = (k: number): boolean => unchanged[k] === true && seen.get(keys[k] as string) === 1;
  const localBefore = (b: number): number => {
    for (let k = b; k >= 0; k--) if (landmark(k)) return baseToLocal[k] as number;
    return -1;
  };
  const localAfter = (b: number): number => {
    for (let k = b; k < count; k++) if (landmark(k)) return baseToLocal[k] as number;
    return state.local.segments.length;
  };
  const used = new Set<number>();
  const take = (after: number, before: number, block: Block): boolean => {
    const content = contentOfBlock(block);
    for (let l = localBefore(after) + 1; l < localAfter(before); l++) {
      const b = localToBase[l];
      // A local edit of a block the remote also changed answers that change, not an addition.
      if (used.has(l) || (b != null && (unchanged[b] || state.remoteState(b).kind === 'changed'))) continue;
      const segment = state.local.segments[l] as Segment;
      if (!sameReading(segment.node, content)) continue;
      // Every unknown block reads alike: only kbsync's own placeholder stands for a remote one.
      if (content.type === 'unknown' && !contentOf(state.local.body, segment).startsWith(PLACEHOLDER_PREFIX)) continue;
      used.add(l);
      return true;
    }
    return false;
  };
  return { take, used };
}
