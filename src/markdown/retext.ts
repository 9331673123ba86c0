import { diffWordsWithSpace } from 'diff';
import type { Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from './parse.js';
import { escapeInline, normaliseText } from './text.js';

/** A piece of a block's plain text and, where it can be written back as it reads, where it stands in the source. */
type Leaf = {
  readonly plainStart: number;
  readonly plainEnd: number;
  /** Set for plain text written as itself (no escapes, no entities): an edit inside it can be written in place. */
  readonly source?: { readonly start: number; readonly end: number };
};

/**
 * The plain text of a block's source as the service reads it (mdast-util-to-string, the same reading as
 * the outline), cut into the leaves it is made of.
 */
function leavesOf(source: string): { readonly text: string; readonly leaves: readonly Leaf[] } {
  const leaves: Leaf[] = [];
  let text = '';
  const visit = (node: Nodes): void => {
    if ('children' in node) {
      for (const child of node.children) visit(child as Nodes);
      return;
    }
    const value = toString(node);
    if (value === '') return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    // Only a text node whose source is exactly its value can be edited in place; inline code, HTML, image
    // alt texts and text with escapes or entities cannot (an edit there would change what they are).
    const editable = node.type === 'text' && start !== undefined && end !== undefined && source.slice(start, end) === value;
    leaves.push({ plainStart: text.length, plainEnd: text.length + value.length, ...(editable ? { source: { start, end } } : {}) });
    text += value;
  };
  visit(parseMarkdown(source));
  return { text, leaves };
}

type Hunk = { readonly at: number; readonly removed: number; readonly inserted: string };

function hunksOf(before: string, after: string): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  for (const part of diffWordsWithSpace(before, after)) {
    const last = hunks.at(-1);
    const open = last !== undefined && last.at + last.removed === at;
    if (part.added) {
      if (open) hunks[hunks.length - 1] = { ...last, inserted: last.inserted + part.value };
      else hunks.push({ at, removed: 0, inserted: part.value });
    } else if (part.removed) {
      if (open && last.inserted === '') hunks[hunks.length - 1] = { ...last, removed: last.removed + part.value.length };
      else hunks.push({ at, removed: part.value.length, inserted: '' });
      at += part.value.length;
    } else at += part.value.length;
  }
  return hunks;
}

/** The editable leaf a hunk falls in entirely (an insertion at a boundary may go at the end or the start of one). */
function leafFor(leaves: readonly Leaf[], hunk: Hunk): Leaf | undefined {
  const end = hunk.at + hunk.removed;
  const inside = leaves.filter((leaf) => leaf.source && leaf.plainStart <= hunk.at && end <= leaf.plainEnd);
  // A pure insertion between two leaves is ambiguous only when neither side is plain text.
  return inside.find((leaf) => hunk.removed > 0 || (leaf.plainStart < hunk.at && hunk.at < leaf.plainEnd)) ?? inside[0];
}

/**
 * A block's Markdown source with its text changed to `text`, the edit written into the plain text where it
 * happened, so that links, inline code and emphasis around unchanged text stay as written. Undefined when
 * an edit touches markup (it crosses a link, a code span, an escape): then the text can only be written
 * plain, which the caller must say.
 */
export function retext(source: string, text: string): string | undefined {
  const { text: before, leaves } = leavesOf(source);
  if (normaliseText(before) === normaliseText(text)) return source;
  const hunks = hunksOf(before, text);
  // A text rewritten more than it was kept is a new text: its pieces would land in markup at random.
  const kept = before.length - hunks.reduce((sum, hunk) => sum + hunk.removed, 0);
  if (kept * 2 < before.length) return undefined;
  let out = source;
  for (const hunk of [...hunks].reverse()) {
    const leaf = leafFor(leaves, hunk);
    if (!leaf?.source) return undefined;
    const from = leaf.source.start + (hunk.at - leaf.plainStart);
    const inserted = escapeInline(hunk.inserted);
    out = out.slice(0, from) + inserted + out.slice(from + hunk.removed);
  }
  // The proof: the result reads as the new text. Anything else (an escape that did not hold) is refused.
  return normaliseText(leavesOf(out).text) === normaliseText(text) ? out : undefined;
}

/** Does a block's source say more than its plain text (links, emphasis, code, escapes)? Then writing it plain loses that. */
export function hasMarkup(source: string): boolean {
  const { text, leaves } = leavesOf(source);
  if (leaves.some((leaf) => !leaf.source)) return true;
  // Without its block marker (heading, list, quote), plain source reads exactly as it is written.
  const body = source.replace(/^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)/, '');
  return normaliseText(body) !== normaliseText(text);
}
