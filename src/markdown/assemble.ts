import type { ListEntry } from './list-shape.js';
import { gapOf, type SegmentedBody } from './segments.js';

/** One block of the merged body, in both versions: ours (the result) and theirs (the conflict copy). */
export type Piece = {
  readonly ours: string;
  readonly theirs: string;
  /** Set when this is a local block still standing in its place: its own gap may follow it. */
  readonly localIndex?: number;
  readonly list?: ListEntry;
  /** Carries a local change that the remote does not have yet. */
  readonly pushable: boolean;
  /** A remote text edit written plain over local formatting (see MergeResult.simplified). */
  readonly simplified?: true;
  /** Its words are the web editor's, written from the service's plain reading (see MergeResult.fromReading). */
  readonly fromReading?: true;
  /** Our last write's text, put back by a racing writer's stale overwrite and published again (see MergeResult.restored). */
  readonly restored?: true;
  readonly conflict?: { readonly baseText: string; readonly localText: string; readonly remoteText: string; readonly remoteUnreadable?: true };
};

type Assembled = { readonly text: string; readonly offsets: readonly number[] };

/** A kept gap still separates two blocks correctly: list items may be tight, anything else needs a blank line. */
function fits(gap: string, listPair: boolean): boolean {
  return /\n[ \t]*\n/.test(gap) || (listPair && gap.includes('\n'));
}

function separator(local: SegmentedBody, before: Piece, after: Piece): string {
  const listPair = before.list !== undefined && after.list !== undefined;
  if (before.localIndex !== undefined) {
    const segment = local.segments[before.localIndex];
    const gap = segment ? gapOf(local.body, segment) : '';
    if (after.localIndex === before.localIndex + 1 || fits(gap, listPair)) return gap;
  }
  return listPair ? '\n' : '\n\n';
}

/**
 * Join pieces into a body: the local lead, each piece with the local gap that followed it when its
 * neighbour is unchanged (so an untouched body comes back byte for byte), and the local final gap.
 * `offsets[k]` is where piece k starts (or would have started, for a piece with nothing in this version).
 */
export function assemble(local: SegmentedBody, pieces: readonly Piece[], pick: (piece: Piece) => string): Assembled {
  const offsets: number[] = [];
  let text = local.lead;
  let previous: Piece | undefined;
  for (const piece of pieces) {
    const markdown = pick(piece);
    if (markdown === '') {
      offsets.push(text.length + (previous ? separator(local, previous, piece).length : 0));
      continue;
    }
    if (previous) text += separator(local, previous, piece);
    offsets.push(text.length);
    text += markdown;
    previous = piece;
  }
  if (!previous) return { text: local.segments.length === 0 ? local.body : local.lead, offsets };
  const last = local.segments.at(-1);
  const finalGap = last ? gapOf(local.body, last) : '\n';
  return { text: text + finalGap, offsets };
}
