import { isListBlock } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import { pairScore, type Alignment } from './align.js';
import type { Piece } from './assemble.js';
import { diffLocal, type LocalDiff } from './diff-local.js';
import { diffRemote, type RemoteDiff } from './diff-remote.js';
import { entryOfSource, placeItem, type ListEntry } from './list-shape.js';
import { contentKey, contentOfBlock } from './normalise.js';
import type { Segment, SegmentedBody } from './segments.js';
import { definitionsOf } from './retext.js';
import { renderBlock, renderItem } from './to-markdown.js';

/** Below this pairing score a base node and a remote-base block are not trusted to be the same block. */
const CONFIDENT = 6;

export type RemoteState = { readonly kind: 'none' | 'same' | 'deleted' } | { readonly kind: 'changed'; readonly block: Block };

/** The inputs of one merge, their diffs and mappings, and the pieces written so far (with list context). */
export class MergeState {
  readonly pieces: Piece[] = [];
  readonly localDiff: LocalDiff;
  readonly remoteDiff: RemoteDiff;
  /** Base node → remote-base block, only where the pairing is trusted. */
  readonly baseToRemoteBase: readonly (number | null)[];
  /** Remote-base block → base node, the inverse of the above. */
  readonly remoteBaseToBase: ReadonlyMap<number, number>;
  #history: ListEntry[] = [];
  readonly #levelOffset: number;
  /** The local body's link reference definitions: a block is read with them, as it reads in the document. */
  readonly definitions: string;

  constructor(
    readonly remoteBase: readonly Block[],
    readonly remote: readonly Block[],
    readonly base: SegmentedBody,
    readonly local: SegmentedBody,
    alignment: Alignment,
  ) {
    this.remoteDiff = diffRemote(remoteBase, remote);
    this.baseToRemoteBase = alignment.map.map((j, i) => {
      const node = base.segments[i]?.node;
      const block = j === null ? undefined : remoteBase[j];
      return node && block && pairScore(node, contentOfBlock(block)) >= CONFIDENT ? j : null;
    });
    const inverse = new Map<number, number>();
    this.baseToRemoteBase.forEach((j, b) => {
      if (j !== null) inverse.set(j, b);
    });
    this.remoteBaseToBase = inverse;
    this.localDiff = diffLocal(base, local, {
      gone: (b) => this.#remoteKind(b) === 'deleted',
      changedTo: (b) => {
        const state = this.remoteState(b);
        return state.kind === 'changed' ? contentOfBlock(state.block) : undefined;
      },
      added: new Set(remote.filter((_, r) => this.isAdded(r)).map((block) => contentKey(contentOfBlock(block)))),
    });
    this.#levelOffset = this.#findLevelOffset();
    this.definitions = definitionsOf(local.body);
  }

  /** Services count list levels from 0 or 1; local levels count from 1. */
  #findLevelOffset(): number {
    for (const [b, j] of this.baseToRemoteBase.entries()) {
      const node = this.base.segments[b]?.node;
      const block = j === null ? undefined : this.remoteBase[j];
      if (node?.level !== undefined && isListBlock(block)) return block.level - node.level;
    }
    return 0;
  }

  remoteState(baseIndex: number): RemoteState {
    const kind = this.#remoteKind(baseIndex);
    const j = this.baseToRemoteBase[baseIndex];
    const now = j === null || j === undefined ? undefined : this.remoteDiff.baseToRemote[j];
    const block = now === null || now === undefined ? undefined : this.remote[now];
    return kind === 'changed' && block ? { kind, block } : { kind: kind === 'changed' ? 'same' : kind };
  }

  /**
   * The remote block base block `b` stands for now, when a read shows it spaced anew with the same words (a line
   * another kbsync machine rewrapped: the comparisons above see past spacing, which reads may differ in) while the
   * base was spaced as the last reading of it. Only between two readings of that one block, so spacing a read never
   * showed the same way as the source does is no change.
   */
  respacedRemote(baseIndex: number): Block | undefined {
    const j = this.baseToRemoteBase[baseIndex];
    const now = j === null || j === undefined ? undefined : this.remoteDiff.baseToRemote[j];
    const before = j === null || j === undefined ? undefined : this.remoteBase[j];
    const after = now === null || now === undefined ? undefined : this.remote[now];
    const node = this.base.segments[baseIndex]?.node;
    if (!before || !after || !node || before.type !== after.type || !('text' in before) || !('text' in after)) return undefined;
    return after.text !== before.text && node.text === before.text ? after : undefined;
  }

  /** A remote block the base has no trusted counterpart of (new, or changed and never paired). */
  isAdded(r: number): boolean {
    const j = this.remoteDiff.remoteToBase[r];
    if (j === null || j === undefined) return true;
    return !this.remoteBaseToBase.has(j) && this.remoteDiff.changed[j] === true;
  }

  #remoteKind(baseIndex: number): RemoteState['kind'] {
    const j = this.baseToRemoteBase[baseIndex];
    if (j === null || j === undefined) return 'none';
    const now = this.remoteDiff.baseToRemote[j];
    if (now === null || now === undefined) return 'deleted';
    return this.remoteDiff.changed[j] ? 'changed' : 'same';
  }

  /** The remote block a local node stands for now, if any (for list ids and levels). */
  remoteOfLocal(localIndex: number): Block | undefined {
    const b = this.localDiff.localToBase[localIndex];
    const j = b === null || b === undefined ? null : this.baseToRemoteBase[b];
    const now = j === null || j === undefined ? null : this.remoteDiff.baseToRemote[j];
    return now === null || now === undefined ? undefined : this.remote[now];
  }

  /** The list items written since the last block that is not one. */
  get history(): readonly ListEntry[] {
    return this.#history;
  }

  push(piece: Piece): void {
    this.pieces.push(piece);
    if (piece.list) this.#history.push(piece.list);
    else if (piece.ours !== '') this.#history = [];
  }

  /** The list entry of source written by hand (kept, rebuilt or resurrected), for placing items after it. */
  listEntryOf(segment: Segment, text: string, remote: Block | undefined): ListEntry | undefined {
    const node = segment.node;
    const counterpart = isListBlock(remote) ? remote : undefined;
    const type = counterpart?.type ?? node.type;
    if (type !== 'unorderedList' && type !== 'orderedList') return undefined;
    const listId = counterpart ? counterpart.listId : `local:${node.listId ?? ''}`;
    const level = counterpart ? counterpart.level : (node.level ?? 1) + this.#levelOffset;
    return entryOfSource({ type, listId, level }, text);
  }

  /** A piece of local source standing in its place. */
  localPiece(localIndex: number, ours: string, extra: Omit<Piece, 'ours' | 'theirs' | 'localIndex'> & { readonly theirs?: string }): Piece {
    const segment = this.local.segments[localIndex] as Segment;
    const list = this.listEntryOf(segment, ours, this.remoteOfLocal(localIndex));
    return { ours, theirs: ours, localIndex, ...(list ? { list } : {}), ...extra };
  }

  /** A block written fresh from the remote, placed within the list items written just before it. */
  freshPiece(block: Block): Piece {
    // Words the web editor wrote: whatever formatting they have there, the reading does not show.
    const words = 'text' in block && block.text.trim() !== '' ? { fromReading: true as const } : {};
    if (block.type !== 'unorderedList' && block.type !== 'orderedList') {
      const markdown = renderBlock(block);
      return { ours: markdown, theirs: markdown, pushable: false, ...words };
    }
    const list = placeItem(this.#history, block);
    const markdown = renderItem(list, block.text);
    return { ours: markdown, theirs: markdown, pushable: false, list, ...words };
  }
}
