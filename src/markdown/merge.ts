import type { Block } from '../model/blocks.js';
import { alignmentFor, type Alignment } from './align.js';
import { assemble } from './assemble.js';
import { commentsIn } from './kept-comments.js';
import { planInsertions } from './insertions.js';
import { mergeLines } from './merge-lines.js';
import { MergeState, type RemoteState } from './merge-state.js';
import { contentOfBlock, sameReading } from './normalise.js';
import { outline } from './outline.js';
import { publishedChanges, type PublishedChange } from './published.js';
import { freshMarkdown, rebuild, respace } from './rebuild.js';
import { contentOf, segmentBody, type Segment } from './segments.js';

type MergeInput = {
  /** The body (front matter stripped) as last synced. */
  readonly base: string;
  /** The blocks read back right after that sync. */
  readonly remoteBase: readonly Block[];
  /** The blocks now. */
  readonly remote: readonly Block[];
  /** The body of the local file now. */
  readonly local: string;
  /** Stored by the ledger; recomputed when missing or made for other inputs. */
  readonly alignment?: Alignment;
  /**
   * When this machine's last write is what made `base`: the body the document held just before it. A remote
   * change that puts a block we wrote back as it was then is a lost update, not an edit (see keptLocally).
   */
  readonly priorBase?: string;
};

export type Conflict = {
  /** Markdown of the block as last synced. */
  readonly baseText: string;
  /** The local Markdown ('' when local deleted it). */
  readonly localText: string;
  /** The remote version as Markdown (only a description when `remoteUnreadable`). */
  readonly remoteText: string;
  /**
   * Set when the remote version cannot be read through the API (a table whose cells a read does not
   * give): overwriting the remote would lose that remote edit.
   */
  readonly remoteUnreadable?: true;
  /** Where the block stands in `body`: 1-based line and character offset. */
  readonly position: { readonly line: number; readonly offset: number };
};

export type MergeResult = {
  /** The merged body; at a conflict it holds the local version. */
  readonly body: string;
  readonly conflicts: readonly Conflict[];
  /** The remote blocks differ from the remote base (added, removed or changed). */
  readonly remoteChanged: boolean;
  /** The local body differs from the base at all (even in spacing only). */
  readonly localChanged: boolean;
  /** The merged body holds local changes the remote lacks (edits, additions, deletions, conflicts): push it. */
  readonly needsPush: boolean;
  /** With conflicts: the merged body with the remote version at each conflict, for the conflict copy. */
  readonly conflictCopyBody?: string;
  /**
   * Blocks whose remote text edit could not be written into the local source around its formatting (it
   * crossed a link or a code span): they were written plain, or kept only some of it, losing formatting whose words
   * the edit left alone (retext.ts). 1-based lines in `body`.
   */
  readonly simplified: readonly number[];
  /**
   * Blocks whose words the remote changed or added, written from the service's plain reading: formatting the
   * web editor gave them (bold, a link, inline code) is not in `body`, and no read can show it. 1-based lines in `body`.
   */
  readonly fromReading: readonly number[];
  /**
   * Blocks our last write changed or added that the remote put back or dropped (a lost update): another writer
   * overwrote the document with a copy read before our write landed. The file keeps them and the merge publishes
   * them again. 1-based lines in `body`.
   */
  readonly restored: readonly number[];
};

const baseSource = (state: MergeState, b: number): string => contentOf(state.base.body, state.base.segments[b] as Segment);

/**
 * A block the local side kept byte for byte: the remote's change, if any, applies. Except when the change
 * only undoes what our last write did to it (a block put back as it was, or one we added dropped): that is
 * the footprint of another writer's overwrite racing ours (the service has no conditional write), not an
 * edit. Nobody meant it, and kbsync knows both texts, so it repairs it: our words stay and are published
 * again, with the racing writer's other changes merged around them (never a silent revert, never a hold).
 */
function keptLocally(state: MergeState, b: number, l: number, remote: RemoteState, published: PublishedChange | undefined): void {
  const segment = state.local.segments[l] as Segment;
  const source = contentOf(state.local.body, segment);
  if (reverts(published, remote)) {
    state.push(state.localPiece(l, source, { pushable: true, restored: true }));
    return;
  }
  if (remote.kind === 'deleted') {
    keepComments(state, segment, source);
    return;
  }
  if (remote.kind !== 'changed' || sameReading(segment.node, contentOfBlock(remote.block))) {
    // The same words, perhaps spaced anew by another writer (a rewrap): the file takes the spacing a read shows.
    const spaced = state.respacedRemote(b);
    const markdown = spaced ? respace(source, segment.start, segment.node, spaced, state.definitions) : source;
    if (markdown === source) state.push(state.localPiece(l, source, { pushable: false }));
    else {
      const list = state.listEntryOf(segment, markdown, spaced);
      state.push({ ours: markdown, theirs: markdown, localIndex: l, pushable: false, ...(list ? { list } : {}) });
    }
    return;
  }
  const rebuilt = rebuild(source, segment.start, segment.node, remote.block, state.history, state.definitions);
  if (rebuilt !== undefined) {
    const list = state.listEntryOf(segment, rebuilt.markdown, remote.block);
    state.push({ ours: rebuilt.markdown, theirs: rebuilt.markdown, localIndex: l, pushable: false, fromReading: true, ...(list ? { list } : {}), ...(rebuilt.simplified ? { simplified: true } : {}) });
    return;
  }
  // The edit cannot be written without losing local content (a table whose cells are not readable).
  // Not pushable on its own account: overwriting would undo a remote edit nobody can read.
  const remoteText = freshMarkdown(remote.block, state.history);
  const conflict = { baseText: baseSource(state, b), localText: source, remoteText, remoteUnreadable: true as const };
  state.push(state.localPiece(l, source, { pushable: false, theirs: remoteText, conflict }));
}

/**
 * A block the remote deleted leaves what the editor hid in its source where it was (kept-comments.ts): the
 * comments in its words, and the blocks of comments after them as written. In a list, on a line of their
 * own in the item before it, when there is one (the list stays one list).
 */
function keepComments(state: MergeState, segment: Segment, source: string): void {
  const own = Math.min(source.length, Math.max(0, segment.node.source.end - segment.start));
  const kept = `${commentsIn(source.slice(0, own)).join(' ')}${source.slice(own)}`.trim();
  if (kept === '') return;
  const before = state.pieces.at(-1);
  const marker = before?.list && before.ours !== '' ? /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+/.exec(before.ours) : null;
  const line = (text: string): string => `${text}\n${' '.repeat(marker?.[0].length ?? 0)}${kept}`;
  if (before && marker && !kept.includes('\n')) state.pieces[state.pieces.length - 1] = { ...before, ours: line(before.ours), theirs: line(before.theirs) };
  else state.push({ ours: kept, theirs: kept, pushable: false });
}

/** The remote's change of the block only undoes our last write to it: put back as it was, or dropped where we added it. */
function reverts(published: PublishedChange | undefined, remote: RemoteState): boolean {
  if (published?.kind === 'added') return remote.kind === 'deleted';
  return published?.kind === 'changed' && remote.kind === 'changed' && sameReading(published.prior.node, contentOfBlock(remote.block));
}

/**
 * Our last write's changes, only while the remote could be another writer's overwrite from a copy read before
 * it: such a copy holds none of them, so one that stands in the remote as we wrote it rules that out, and a
 * change of one of the others is an edit, not a revert (soak seed 21: a colleague who deleted one block of a
 * document just made had every block "added" by our first write, and the deletion was taken for a lost update).
 */
function staleOverwriteOnly(published: (b: number) => PublishedChange | undefined, count: number, state: MergeState): (b: number) => PublishedChange | undefined {
  for (let b = 0; b < count; b++) if (published(b) !== undefined && state.remoteState(b).kind === 'same') return () => undefined;
  return published;
}

/**
 * A block the local side edited: an edit beats a delete; both editing the same lines of it differently is a
 * conflict, unless the remote's "edit" only put back what the block held before our last write (a racing
 * writer's stale copy, see keptLocally): nobody edited it there, and the local edit goes out.
 */
function editedLocally(state: MergeState, b: number, l: number, remote: RemoteState, twin: boolean, published: PublishedChange | undefined): void {
  const segment = state.local.segments[l] as Segment;
  const source = contentOf(state.local.body, segment);
  if (remote.kind !== 'changed' || sameReading(segment.node, contentOfBlock(remote.block)) || reverts(published, remote)) {
    state.push(state.localPiece(l, source, { pushable: !twin }));
    return;
  }
  const baseSegment = state.base.segments[b] as Segment;
  // A local edit that reads as the base did (a line rewrapped, emphasis added, spacing) changed no word: the remote's
  // word edit is written into the local source, as into a block kept as it was (keptLocally), and both go out.
  // Where it would cross the new formatting (simplified), the two clash: a conflict, as before (soak seed 500: a
  // rewrap here and a colleague's word in the same paragraph held the page for a person).
  if (sameReading(segment.node, baseSegment.node) && !twin) {
    const rebuilt = rebuild(source, segment.start, segment.node, remote.block, state.history, state.definitions);
    if (rebuilt !== undefined && rebuilt.simplified !== true) {
      const list = state.listEntryOf(segment, rebuilt.markdown, remote.block);
      state.push({ ours: rebuilt.markdown, theirs: rebuilt.markdown, localIndex: l, pushable: true, fromReading: true, ...(list ? { list } : {}) });
      return;
    }
  }
  // The remote's version is its edit of the base, so it is written in the base's source, not in the local edit's.
  const theirs = rebuild(baseSource(state, b), baseSegment.start, baseSegment.node, remote.block, state.history, state.definitions);
  // Edits of different lines of a block of text (a word on its first line here, one on its third there) are both
  // kept, as git keeps them: only the same lines changed differently clash. Not where the remote's words could not
  // be written around the base's formatting (simplified): lines it wrote plain are no edit of theirs, and nothing
  // would say their formatting went; nor a table drawn anew from its cells, or a block that changed its kind.
  const text = 'text' in remote.block && remote.block.type === baseSegment.node.type;
  const both = text && theirs !== undefined && theirs.simplified !== true && !twin ? mergeLines(baseSource(state, b), source, theirs.markdown) : undefined;
  if (both !== undefined) {
    const list = state.listEntryOf(segment, both, remote.block);
    state.push({ ours: both, theirs: both, localIndex: l, pushable: true, fromReading: true, ...(list ? { list } : {}) });
    return;
  }
  const remoteText = theirs?.markdown ?? freshMarkdown(remote.block, state.history);
  const conflict = { baseText: baseSource(state, b), localText: source, remoteText };
  state.push(state.localPiece(l, source, { pushable: true, theirs: remoteText, conflict }));
}

/**
 * A block the local side deleted. When the remote edited it meanwhile, the remote's version comes back
 * where it was, without a conflict: an edit beats a delete (the same rule as the other way round), the
 * user sees the text return, and nothing of either side is lost. Only when the edit cannot be written
 * (a table without readable cells) is it a conflict, with the remote version in the conflict copy.
 * Returns whether the deletion still has to reach the remote.
 */
function deletedLocally(state: MergeState, b: number, remote: RemoteState, alreadyBack: boolean): boolean {
  if (remote.kind !== 'changed') return remote.kind === 'same';
  if (alreadyBack) return false;
  const segment = state.base.segments[b] as Segment;
  const source = baseSource(state, b);
  const rebuilt = rebuild(source, segment.start, segment.node, remote.block, state.history, state.definitions);
  if (rebuilt !== undefined) {
    const list = state.listEntryOf(segment, rebuilt.markdown, remote.block);
    state.push({ ours: rebuilt.markdown, theirs: rebuilt.markdown, pushable: false, fromReading: true, ...(list ? { list } : {}) });
    return false;
  }
  const remoteText = freshMarkdown(remote.block, state.history);
  state.push({ ours: '', theirs: remoteText, pushable: false, conflict: { baseText: source, localText: '', remoteText, remoteUnreadable: true } });
  return false;
}

/**
 * Three-way merge of a body. Remote changes (remote base → remote, by block id) apply to blocks the local
 * side did not change (base → local, by source); local source is kept everywhere else, byte for byte;
 * both sides changing one block, on different lines, is both edits (mergeLines); on the same lines
 * differently, a conflict: `body` keeps the local version and
 * `conflictCopyBody` the remote one. Identical changes on both sides are not conflicts.
 */
export function merge3(input: MergeInput): MergeResult {
  const baseNodes = outline(input.base);
  const base = segmentBody(input.base, baseNodes);
  const local = segmentBody(input.local);
  const alignment = alignmentFor(input.base, input.remoteBase, baseNodes, input.alignment);
  const state = new MergeState(input.remoteBase, input.remote, base, local, alignment);
  const published = staleOverwriteOnly(publishedChanges(input.priorBase, base), base.segments.length, state);
  const plan = planInsertions(state);
  let deletionToPush = false;
  const insertionsAfter = (anchor: number): void => {
    for (const l of plan.localAt.get(anchor) ?? []) {
      state.push(state.localPiece(l, contentOf(local.body, local.segments[l] as Segment), { pushable: !plan.twins.has(l) }));
    }
    for (const block of plan.remoteAt.get(anchor) ?? []) state.push(state.freshPiece(block));
  };
  insertionsAfter(-1);
  base.segments.forEach((_, b) => {
    const l = state.localDiff.baseToLocal[b];
    const remote = state.remoteState(b);
    if (l === null || l === undefined) deletionToPush = deletedLocally(state, b, remote, plan.resurrectedAlready.has(b)) || deletionToPush;
    else if (state.localDiff.unchanged[b]) keptLocally(state, b, l, remote, published(b));
    else editedLocally(state, b, l, remote, plan.twins.has(l), published(b));
    insertionsAfter(b);
  });
  return result(input, state, deletionToPush);
}

function result(input: MergeInput, state: MergeState, deletionToPush: boolean): MergeResult {
  const ours = assemble(state.local, state.pieces, (piece) => piece.ours);
  const conflicts: Conflict[] = [];
  const simplified: number[] = [];
  const fromReading: number[] = [];
  const restored: number[] = [];
  const lineAt = (k: number): { line: number; offset: number } => {
    const offset = ours.offsets[k] ?? ours.text.length;
    return { line: ours.text.slice(0, offset).split('\n').length, offset };
  };
  state.pieces.forEach((piece, k) => {
    if (piece.simplified) simplified.push(lineAt(k).line);
    if (piece.fromReading) fromReading.push(lineAt(k).line);
    if (piece.restored) restored.push(lineAt(k).line);
    if (piece.conflict) conflicts.push({ ...piece.conflict, position: lineAt(k) });
  });
  return {
    body: ours.text,
    conflicts,
    remoteChanged: state.remoteDiff.any,
    localChanged: input.local !== input.base,
    needsPush: deletionToPush || state.pieces.some((piece) => piece.pushable),
    simplified,
    fromReading,
    restored,
    ...(conflicts.length > 0 ? { conflictCopyBody: assemble(state.local, state.pieces, (piece) => piece.theirs).text } : {}),
  };
}
