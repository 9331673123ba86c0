import type { ServiceBlock, StoredBlock } from '../store/types.js';
import type { BlockPayload, ConvertedBlock } from './to-blocks.js';

/** Above this many cells the alignment is skipped (fresh ids); bodies that large are not what tests edit. */
const MAX_ALIGNMENT_CELLS = 4_000_000;

/**
 * Gives converted blocks their `id` and `index`. An overwrite gives every block a fresh id; a remote edit
 * (the web editor) keeps the id of every block it did not change, found by a longest-common-subsequence
 * alignment of the old and new block contents. The editor knows which block it changed, hidden ones too: their
 * content (kept, never served) tells apart code blocks that all read as `unknown` (a colleague who deleted the
 * first of a run of them deleted that one, not the last: soak seed 21).
 */
export function assignIds(converted: readonly ConvertedBlock[], newId: () => string, previous?: readonly StoredBlock[]): StoredBlock[] {
  const reused = previous ? alignIds(previous, converted) : new Map<number, string>();
  return converted.map((item, index) => {
    const block: ServiceBlock = { id: reused.get(index) ?? newId(), index, ...item.payload };
    return { block, ...(item.sourceEnd === undefined ? {} : { sourceEnd: item.sourceEnd }), ...(item.hidden === undefined ? {} : { hidden: item.hidden }) };
  });
}

/** The content of a block apart from its ids, so an unchanged list item matches though its listId is new; with what it hides. */
function contentKey(payload: BlockPayload | ServiceBlock, hidden: string | undefined): string {
  const { id: _id, index: _index, ...rest } = payload as Record<string, unknown>;
  return JSON.stringify([rest, hidden ?? null], (key, value: unknown) => (key === 'listId' ? undefined : value));
}

function alignIds(previous: readonly StoredBlock[], next: readonly ConvertedBlock[]): Map<number, string> {
  const reused = new Map<number, string>();
  const n = previous.length;
  const m = next.length;
  if (n * m > MAX_ALIGNMENT_CELLS) return reused;
  const a = previous.map((stored) => contentKey(stored.block, stored.hidden));
  const b = next.map((item) => contentKey(item.payload, item.hidden));
  // lengths[i][j] = LCS length of a[i..] and b[j..]
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lengths[i] as Uint32Array;
      const below = lengths[i + 1] as Uint32Array;
      row[j] = a[i] === b[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  let i = 0;
  let j = 0;
  const oldGap: number[] = [];
  const newGap: number[] = [];
  const closeGap = () => pairEdited(previous, next, oldGap.splice(0), newGap.splice(0), reused);
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      closeGap();
      reused.set(j, previous[i]?.block.id ?? '');
      i++;
      j++;
    } else if ((lengths[i + 1]?.[j] ?? 0) >= (lengths[i]?.[j + 1] ?? 0)) oldGap.push(i++);
    else newGap.push(j++);
  }
  while (i < n) oldGap.push(i++);
  while (j < m) newGap.push(j++);
  closeGap();
  return reused;
}

/**
 * Between two unchanged blocks, the web editor edits blocks in place: the k-th changed block keeps the
 * id of the k-th old block there when both are of one type (an edited paragraph is the same block).
 */
function pairEdited(previous: readonly StoredBlock[], next: readonly ConvertedBlock[], oldGap: number[], newGap: number[], reused: Map<number, string>): void {
  for (let k = 0; k < Math.min(oldGap.length, newGap.length); k++) {
    const before = previous[oldGap[k] as number]?.block;
    const after = next[newGap[k] as number]?.payload;
    if (before && after && before.blockType === after.blockType) reused.set(newGap[k] as number, before.id);
  }
}
