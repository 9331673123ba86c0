import { diffLocal } from './diff-local.js';
import { contentOf, segmentBody, type Segment, type SegmentedBody } from './segments.js';

/** What this machine's last write did to one block of the base: added it, or changed it from `prior`. */
export type PublishedChange = { readonly kind: 'added' } | { readonly kind: 'changed'; readonly prior: Segment; readonly priorSource: string };

/**
 * The blocks of `base` that this machine's last write changed, measured against what the document held
 * just before it (`priorBase`). The service has no conditional write: another writer that read before our
 * write and wrote after it puts those blocks back as they were, which looks exactly like a remote edit.
 * Knowing what we changed is what lets the merge tell that footprint from an edit.
 */
export function publishedChanges(priorBase: string | undefined, base: SegmentedBody): (b: number) => PublishedChange | undefined {
  if (priorBase === undefined) return () => undefined;
  const prior = segmentBody(priorBase);
  // Read as "prior → base": base plays the local side, so localToBase maps each base block to its prior one.
  const diff = diffLocal(prior, base);
  return (b) => {
    const p = diff.localToBase[b];
    if (p === null || p === undefined) return { kind: 'added' };
    if (diff.unchanged[p]) return undefined;
    const segment = prior.segments[p] as Segment;
    return { kind: 'changed', prior: segment, priorSource: contentOf(prior.body, segment) };
  };
}
