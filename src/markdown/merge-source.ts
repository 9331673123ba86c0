import { diffLocal } from './diff-local.js';
import { mergeLines } from './merge-lines.js';
import type { Conflict } from './merge.js';
import { publishedChanges } from './published.js';
import { contentOf, gapOf, segmentBody, type Segment, type SegmentedBody } from './segments.js';

/**
 * The three-way merge of two Markdown versions of one body, block by block and in source: used when the
 * other side's version is Markdown too (what another kbsync writer published, kept in the shared state), not
 * the service's plain reading. Whatever one side changed and the other did not is taken byte for byte,
 * formatting, code, tables and line endings included; both sides changing one block on different lines is
 * both edits (mergeLines), on the same lines differently a conflict (`body` keeps ours, `conflictCopyBody`
 * theirs); an edit beats a delete. Two machines merging the
 * same versions write the same bytes.
 */
type SourceMerge = {
  readonly body: string;
  readonly conflicts: readonly Conflict[];
  readonly conflictCopyBody?: string;
  /** Blocks of `theirs` that came out as the merge wrote them: their lines in `body` (1-based), by theirs' block index. */
  readonly theirsLines: ReadonlyMap<number, number>;
  /** Blocks of our last write a racing writer's stale copy put back or dropped, kept and published again (MergeResult.restored). */
  readonly restored: readonly number[];
};

type Origin = { readonly side: 'local' | 'theirs'; readonly index: number };

type Piece = {
  readonly ours: string;
  readonly theirs: string;
  /** Where the piece's source comes from, for the gap that follows it and its line. */
  readonly origin: Origin;
  readonly list: boolean;
  readonly restored?: true;
  readonly conflict?: Omit<Conflict, 'position'>;
  /** A block of ours with theirs' edit of other lines of it merged in: that block of theirs, whose words it carries. */
  readonly theirsIndex?: number;
  /** What follows it, where not its own side's: the other side changed only the line endings there (endingsOfGap). */
  readonly gap?: string;
};

const isList = (segment: Segment): boolean => segment.node.type === 'unorderedList' || segment.node.type === 'orderedList';

/** The line ending a body mostly uses: new separators are written with it. */
function eolOf(text: string): string {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return crlf * 2 > (text.match(/\n/g) ?? []).length ? '\r\n' : '\n';
}

/** What follows a block of a body, up to the next (its line ending and the blank lines after it). */
const gapAfterBlock = (body: SegmentedBody, index: number): string => gapOf(body.body, body.segments[index] as Segment);

const withoutCr = (text: string): string => text.replace(/\r\n/g, '\n');

/**
 * What follows a block both sides kept, where the two differ in line endings alone: the side that changed them
 * wins, as with the whole file's endings (line-endings.ts). The block's own source may come from the other side
 * (its words changed there): taken with its side's gap, a CRLF this side gave the line was lost (convergence soak
 * 759: a colleague's words on a line whose ending another machine had changed). Undefined: nothing to merge.
 */
function endingsOfGap(base: string, local: string, theirs: string): { readonly local: string; readonly theirs: string; readonly merged: string } | undefined {
  if (local === theirs || withoutCr(local) !== withoutCr(theirs)) return undefined;
  return { local, theirs, merged: local === base ? theirs : local };
}

/** A piece with the gap endingsOfGap merged, where its own side's differs. */
function withEndingsOfGap(piece: Piece, gaps: ReturnType<typeof endingsOfGap>): Piece {
  if (gaps === undefined) return piece;
  const own = piece.origin.side === 'local' ? gaps.local : gaps.theirs;
  return own === gaps.merged ? piece : { ...piece, gap: gaps.merged };
}

export function mergeSources(input: { readonly base: string; readonly local: string; readonly theirs: string; readonly priorBase?: string }): SourceMerge {
  const { base, local, theirs } = input;
  if (local === theirs) return whole(theirs, 'local');
  // Nothing changed here: theirs is taken, unless it puts back what our last write changed (a lost update).
  if (local === base && input.priorBase === undefined) return whole(theirs, 'theirs');
  if (theirs === base) return whole(local, 'local');
  const B = segmentBody(base);
  const L = segmentBody(local);
  const T = segmentBody(theirs);
  const toLocal = diffLocal(B, L);
  const toTheirs = diffLocal(B, T);
  const written = publishedChanges(input.priorBase, B);
  // Only while theirs could be a copy read before our last write: one that holds any of that write's changes as
  // we made them was read after it, and its other changes are edits (merge.ts staleOverwriteOnly).
  const stale = !B.segments.some((_, b) => written(b) !== undefined && toTheirs.baseToLocal[b] != null && toTheirs.unchanged[b] === true);
  const published = stale ? written : () => undefined;
  const pieces: Piece[] = [];
  const source = (body: SegmentedBody, side: Origin['side'], index: number): Piece => {
    const segment = body.segments[index] as Segment;
    const text = contentOf(body.body, segment);
    return { ours: text, theirs: text, origin: { side, index }, list: isList(segment) };
  };

  // Blocks each side added, by the base block they follow (-1: before the first).
  const added = (diff: typeof toLocal): Map<number, number[]> => {
    const at = new Map<number, number[]>();
    let anchor = -1;
    diff.localToBase.forEach((b, i) => {
      if (b !== null) anchor = b;
      else at.set(anchor, [...(at.get(anchor) ?? []), i]);
    });
    return at;
  };
  const localAdded = added(toLocal);
  const theirsAdded = added(toTheirs);
  const insertionsAfter = (anchor: number): void => {
    const ours = (localAdded.get(anchor) ?? []).map((i) => source(L, 'local', i));
    for (const piece of ours) pieces.push(piece);
    // The same block added on both sides is one block.
    for (const i of theirsAdded.get(anchor) ?? []) {
      const piece = source(T, 'theirs', i);
      if (!ours.some((o) => o.ours === piece.ours)) pieces.push(piece);
    }
  };

  insertionsAfter(-1);
  B.segments.forEach((segment, b) => {
    const l = toLocal.baseToLocal[b];
    const t = toTheirs.baseToLocal[b];
    const before = pieces.length;
    const baseText = contentOf(B.body, segment);
    const localSame = l != null && toLocal.unchanged[b] === true;
    const theirsSame = t != null && toTheirs.unchanged[b] === true;
    const change = published(b);
    if (l == null) {
      // Deleted here: gone, unless theirs edited it (an edit beats a delete).
      if (t != null && !theirsSame) pieces.push(source(T, 'theirs', t));
    } else if (t == null) {
      if (!localSame) pieces.push(source(L, 'local', l));
      // Theirs lacks a block our last write added: a writer that read before our write overwrote it. Kept.
      else if (change?.kind === 'added') pieces.push({ ...source(L, 'local', l), restored: true });
    } else if (localSame) {
      const piece = source(T, 'theirs', t);
      // Theirs put back what this block held before our last write: a lost update, not an edit. Ours stays.
      if (!theirsSame && change?.kind === 'changed' && change.priorSource === piece.ours) pieces.push({ ...source(L, 'local', l), restored: true });
      else pieces.push(piece);
    } else if (theirsSame) {
      pieces.push(source(L, 'local', l));
    } else {
      const ours = source(L, 'local', l);
      const other = source(T, 'theirs', t);
      // Theirs only put back what the block held before our last write: nobody edited it there; the local edit stands.
      const putBack = change?.kind === 'changed' && change.priorSource === other.ours;
      if (ours.ours === other.ours || putBack) pieces.push(ours);
      else {
        // Edits of different lines of it are both kept (mergeLines); the same lines changed differently clash.
        const both = mergeLines(baseText, ours.ours, other.ours);
        pieces.push(both !== undefined ? { ...ours, ours: both, theirs: both, theirsIndex: t } : { ...ours, theirs: other.ours, conflict: { baseText, localText: ours.ours, remoteText: other.ours } });
      }
    }
    const piece = pieces[before];
    if (piece !== undefined && l != null && t != null) pieces[before] = withEndingsOfGap(piece, endingsOfGap(gapAfterBlock(B, b), gapAfterBlock(L, l), gapAfterBlock(T, t)));
    insertionsAfter(b);
  });
  // What precedes the first block and what follows the last (blank lines, a missing final newline) merge like
  // blocks: the side that changed it wins. The service reads neither, so a change of one is seen only here.
  const lead = L.lead === B.lead ? T.lead : L.lead;
  const tail = tailOf(L) === tailOf(B) ? tailOf(T) : tailOf(L);
  return assembled(pieces, L, T, eolOf(local), { lead, tail });
}

/** One side's version, taken whole (the other side had nothing to add). */
function whole(text: string, side: Origin['side']): SourceMerge {
  const body = segmentBody(text);
  const theirsLines = new Map<number, number>();
  if (side === 'theirs') body.segments.forEach((segment, i) => theirsLines.set(i, lineOf(text, segment.start)));
  return { body: text, conflicts: [], theirsLines, restored: [] };
}

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/**
 * The pieces joined: a piece followed by the block that followed it in its own version keeps the gap between
 * them byte for byte; elsewhere a gap is kept where it still parts the blocks (a blank line, or a line break
 * between list items), else a blank line in the body's own line ending is written.
 */
/** What follows a body's last block, or undefined for a body with no block. */
const tailOf = (body: SegmentedBody): string | undefined => {
  const last = body.segments.at(-1);
  return last ? gapOf(body.body, last) : undefined;
};

function assembled(pieces: readonly Piece[], L: SegmentedBody, T: SegmentedBody, eol: string, ends: { readonly lead: string; readonly tail: string | undefined }): SourceMerge {
  const bodies = { local: L, theirs: T };
  const gapAfter = (origin: Origin): string => {
    const body = bodies[origin.side];
    const segment = body.segments[origin.index];
    return segment ? gapOf(body.body, segment) : '';
  };
  const join = (pick: (piece: Piece) => string): { text: string; offsets: number[] } => {
    let text = ends.lead;
    const offsets: number[] = [];
    let previous: Piece | undefined;
    for (const piece of pieces) {
      const markdown = pick(piece);
      if (markdown === '') {
        offsets.push(text.length);
        continue;
      }
      if (previous) {
        const gap = previous.gap ?? gapAfter(previous.origin);
        const successor = previous.origin.side === piece.origin.side && previous.origin.index + 1 === piece.origin.index;
        const fits = /\n[ \t]*\r?\n/.test(gap) || (previous.list && piece.list && gap.includes('\n'));
        text += successor || fits ? gap : `${eol}${eol}`;
      }
      offsets.push(text.length);
      text += markdown;
      previous = piece;
    }
    return { text: text + (ends.tail ?? eol), offsets };
  };
  const ours = join((piece) => piece.ours);
  const conflicts: Conflict[] = [];
  const theirsLines = new Map<number, number>();
  const restored: number[] = [];
  pieces.forEach((piece, k) => {
    const offset = ours.offsets[k] ?? ours.text.length;
    if (piece.restored) restored.push(lineOf(ours.text, offset));
    if (piece.conflict) conflicts.push({ ...piece.conflict, position: { line: lineOf(ours.text, offset), offset } });
    else if (piece.origin.side === 'theirs' || piece.theirsIndex !== undefined) theirsLines.set(piece.theirsIndex ?? piece.origin.index, lineOf(ours.text, offset));
  });
  return { body: ours.text, conflicts, theirsLines, restored, ...(conflicts.length > 0 ? { conflictCopyBody: join((piece) => piece.theirs).text } : {}) };
}
