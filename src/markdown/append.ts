import type { Block } from '../model/blocks.js';
import type { BlockId } from '../model/ids.js';
import { alignmentFor, type Alignment } from './align.js';
import { outline } from './outline.js';
import { contentOf, gapOf, segmentBody } from './segments.js';

export type AppendChange = { readonly blockId: BlockId; readonly text: string };

/**
 * When the only local change is plain text added at the end of one paragraph, the block to append it to
 * and the text: `appendText` then leaves the rest of the remote body (and what reads cannot show, like
 * code and images) untouched. Undefined whenever anything else changed or the appended text carries
 * Markdown that the service would flatten. The caller still checks that the remote equals the remote
 * base before appending.
 */
export function appendOnlyChange(base: string, local: string, remoteBase: readonly Block[], alignment?: Alignment): AppendChange | undefined {
  const baseNodes = outline(base);
  const before = segmentBody(base, baseNodes);
  const after = segmentBody(local);
  if (before.segments.length !== after.segments.length || before.lead !== after.lead) return undefined;
  let changed: number | undefined;
  for (const [k, segment] of before.segments.entries()) {
    const other = after.segments[k];
    if (!other || other.node.type !== segment.node.type) return undefined;
    const last = k === before.segments.length - 1;
    // The final gap may differ (an editor adding a newline); other gaps hold the structure.
    if (!last && gapOf(base, segment) !== gapOf(local, other)) return undefined;
    if (contentOf(base, segment) === contentOf(local, other)) continue;
    if (changed !== undefined) return undefined;
    changed = k;
  }
  if (changed === undefined) return undefined;
  const baseSegment = before.segments[changed];
  const localSegment = after.segments[changed];
  if (!baseSegment || !localSegment || baseSegment.node.type !== 'paragraph') return undefined;
  const oldSource = contentOf(base, baseSegment);
  const newSource = contentOf(local, localSegment);
  if (!newSource.startsWith(oldSource)) return undefined;
  const appended = newSource.slice(oldSource.length);
  // Plain means the appended source reads as itself: no formatting, escapes, links or line breaks.
  if (appended.includes('\n') || localSegment.node.text !== baseSegment.node.text + appended) return undefined;
  const j = alignmentFor(base, remoteBase, baseNodes, alignment).map[changed];
  const block = j === null || j === undefined ? undefined : remoteBase[j];
  // appendText adds to the end of the remote text, so it must be exactly the base text.
  if (block?.type !== 'paragraph' || block.text !== baseSegment.node.text) return undefined;
  return { blockId: block.id, text: appended };
}
