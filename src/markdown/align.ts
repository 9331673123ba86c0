import type { Block } from '../model/blocks.js';
import { blocksHash, contentHash } from './hash.js';
import { contentKey, contentOfBlock, sameContent, type Content } from './normalise.js';
import { outline, type OutlineNode } from './outline.js';
import { alignSequences } from './sequence.js';
import { normaliseText, textSimilarity } from './text.js';

/**
 * Which remote-base block each outline node of the base became, stored by the ledger after every sync
 * (JSON). The hashes say which base and which block list it was computed for, so a stale one is ignored.
 */
export type Alignment = {
  readonly version: 1;
  readonly baseHash: string;
  readonly blocksHash: string;
  /** For each outline node of the base, in order: the index in the remote-base block list, or null. */
  readonly map: readonly (number | null)[];
};

/** How sure a node ⇄ block pairing is; the service may type, split or empty things differently. */
export function pairScore(node: Content, block: Content): number {
  const textA = normaliseText(node.text);
  const textB = normaliseText(block.text);
  if (node.type !== block.type) return textA !== '' && textA === textB ? 2 : 0;
  if (node.type === 'unknown') return 8;
  if (node.type === 'table') return node.cols === block.cols && node.rows === block.rows ? 8 : 3;
  if (textA === textB && (node.type !== 'heading' || node.level === block.level)) return 10;
  if (sameContent(node, block)) return 6;
  return 1 + 4 * textSimilarity(textA, textB);
}

function alignContents(nodes: readonly Content[], blocks: readonly Content[]): (number | null)[] {
  const map: (number | null)[] = nodes.map(() => null);
  const pairs = alignSequences(nodes, blocks, { keyA: contentKey, keyB: contentKey, score: pairScore });
  for (const [i, j] of pairs) map[i] = j;
  return map;
}

/** Map each outline node of `baseBody` to the block the service made of it (read right after a push). */
export function align(baseBody: string, remoteBaseBlocks: readonly Block[], nodes: readonly OutlineNode[] = outline(baseBody)): Alignment {
  return {
    version: 1,
    baseHash: contentHash(baseBody),
    blocksHash: blocksHash(remoteBaseBlocks),
    map: alignContents(nodes, remoteBaseBlocks.map(contentOfBlock)),
  };
}

/** The stored alignment when it was made for these inputs, else a fresh one. */
export function alignmentFor(baseBody: string, remoteBase: readonly Block[], nodes: readonly OutlineNode[], stored?: Alignment | null): Alignment {
  // A record made from the shared state has none stored (null): it is made afresh.
  const fits =
    stored !== undefined &&
    stored !== null &&
    stored.version === 1 &&
    stored.map.length === nodes.length &&
    stored.baseHash === contentHash(baseBody) &&
    stored.blocksHash === blocksHash(remoteBase) &&
    stored.map.every((j) => j === null || (Number.isInteger(j) && j >= 0 && j < remoteBase.length));
  return fits ? stored : align(baseBody, remoteBase, nodes);
}
