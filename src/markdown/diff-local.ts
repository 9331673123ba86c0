import { contentKey, sameReading, type Content } from './normalise.js';
import type { OutlineNode } from './outline.js';
import { contentOf, type SegmentedBody } from './segments.js';
import { alignSequences } from './sequence.js';
import { normaliseText, textSimilarity } from './text.js';

/** How the local body differs from the base, node by node, judged on exact source. */
export type LocalDiff = {
  /** For each base node: the local node it became (unchanged or edited), or null when deleted. */
  readonly baseToLocal: readonly (number | null)[];
  /** For each base node: true when its local node has the very same source. */
  readonly unchanged: readonly boolean[];
  /** For each local node: the base node it came from, or null when new. */
  readonly localToBase: readonly (number | null)[];
};

type Keyed = { readonly type: string; readonly key: string; readonly text: string; readonly node: OutlineNode };

function keyed(body: SegmentedBody): Keyed[] {
  return body.segments.map((segment) => ({
    type: segment.node.type,
    key: `${segment.node.type}\u0000${contentOf(body.body, segment)}`,
    text: normaliseText(segment.node.text),
    node: segment.node,
  }));
}

/** What the remote did to base nodes, so that ambiguous pairings side with it. */
type RemoteHints = {
  /** The remote deleted this base node. */
  readonly gone: (baseIndex: number) => boolean;
  /** The remote's new version of this base node, when it changed it. */
  readonly changedTo: (baseIndex: number) => Content | undefined;
  /** Content keys of the blocks the remote added. */
  readonly added: ReadonlySet<string>;
};

const NO_HINTS: RemoteHints = { gone: () => false, changedTo: () => undefined, added: new Set() };

/**
 * Same source pairs first (weighted so one exact match outweighs any number of edits); between them,
 * nodes of the same type pair up as edits, the most similar text first.
 *
 * Equal or similar blocks make the pairing ambiguous, and the remote's changes settle it: among equal
 * choices a base node the remote deleted pairs last (so a body that already took the remote's deletion
 * is not read as deleting a neighbour); a local node that already says what the remote changed a base
 * node to pairs with that node; a local node that says what the remote added is an addition, not an
 * edit (so it is recognised as the remote's own addition, taken in before).
 *
 * A merge run again on its own result must read it as the first run did (a crash before the sync was
 * recorded, a second machine). That result holds no node the remote changed as it was, and leaves none out:
 * kept, it took the remote's version; edited, it kept the local edit (a conflict); deleted, the remote's
 * version came back (all but a change no read shows, a table resized without its cells, which leaves the
 * local table or nothing in a conflict). So among equal choices an unchanged copy pairs with a twin the
 * remote left alone, and an edit pairs with a node the remote changed (merge3 example: twins between two
 * edits, once the neighbour that told them apart is gone).
 */
export function diffLocal(base: SegmentedBody, local: SegmentedBody, hints: RemoteHints = NO_HINTS): LocalDiff {
  const a = keyed(base).map((x, i) => ({ ...x, gone: hints.gone(i), changedTo: hints.changedTo(i) }));
  const b = keyed(local);
  const pairs = alignSequences(a, b, {
    // A node the remote deleted or changed never pairs by the shortcut for equal ends, only by score.
    keyA: (x) => (x.gone || x.changedTo ? `${x.key}\u0001remote` : x.key),
    keyB: (y) => y.key,
    score: (x, y) => {
      if (x.key === y.key) return x.gone || x.changedTo ? 1000 : 1001;
      if (x.type !== y.type || hints.added.has(contentKey(y.node))) return 0;
      const similarity = textSimilarity(x.text, y.text);
      // An unrelated text in the place of a block the remote deleted is an addition: kept just the same.
      if (x.gone && similarity === 0) return 0;
      const remoteSays = x.changedTo && sameReading(y.node, x.changedTo) ? 500 : 0;
      return 1 + similarity + remoteSays - (x.gone ? 0.01 : 0) + (x.changedTo ? 0.01 : 0);
    },
  });
  const baseToLocal: (number | null)[] = a.map(() => null);
  const unchanged = a.map(() => false);
  const localToBase: (number | null)[] = b.map(() => null);
  for (const [i, j] of pairs) {
    baseToLocal[i] = j;
    localToBase[j] = i;
    unchanged[i] = a[i]?.key === b[j]?.key;
  }
  return { baseToLocal, unchanged, localToBase };
}
