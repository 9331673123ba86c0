/**
 * Where a list item goes and how its marker looks, given the items written just before it. Levels are
 * compared relatively (services count from 0 or from 1); a change of list id at the same level starts a
 * new list, which Markdown only sees when the bullet character or ordered delimiter changes.
 */
export type ListType = 'unorderedList' | 'orderedList';

export type ListEntry = {
  readonly type: ListType;
  readonly listId: string;
  readonly level: number;
  /** Spaces before the marker. */
  readonly indent: number;
  /** `-`, `*` or `+`; `.` or `)` for ordered lists. */
  readonly bullet: string;
  readonly number: number;
  /** Column where the item's text starts: children are indented this far. */
  readonly contentIndent: number;
};

type ListItemLike = { readonly type: ListType; readonly listId: string; readonly level: number };

const DEFAULT_BULLET: Record<ListType, string> = { unorderedList: '-', orderedList: '.' };
const ALTERNATE: Record<string, string> = { '-': '*', '*': '-', '+': '-', '.': ')', ')': '.' };

export const markerText = (entry: Pick<ListEntry, 'type' | 'bullet' | 'number'>): string =>
  entry.type === 'orderedList' ? `${entry.number}${entry.bullet}` : entry.bullet;

function entry(item: ListItemLike, indent: number, bullet: string, number: number): ListEntry {
  const width = markerText({ type: item.type, bullet, number }).length + 1;
  return { ...item, indent, bullet, number, contentIndent: indent + width };
}

/** Place `item` after `history` (the items of the current run of list blocks, oldest first). */
export function placeItem(history: readonly ListEntry[], item: ListItemLike): ListEntry {
  for (let k = history.length - 1; k >= 0; k--) {
    const before = history[k] as ListEntry;
    if (before.level < item.level) return entry(item, before.contentIndent, DEFAULT_BULLET[item.type], 1);
    if (before.level > item.level) continue;
    if (before.listId === item.listId && before.type === item.type) return entry(item, before.indent, before.bullet, before.number + 1);
    const bullet = before.type === item.type ? (ALTERNATE[before.bullet] ?? DEFAULT_BULLET[item.type]) : DEFAULT_BULLET[item.type];
    return entry(item, before.indent, bullet, 1);
  }
  return entry(item, 0, DEFAULT_BULLET[item.type], 1);
}

const MARKER = /^([ \t]*)([-*+]|(\d{1,9})([.)]))([ \t]*)/;

/**
 * The list entry of an item already written in Markdown (its own source), for placing items after it.
 * Its children go at its content column: after the marker and up to four spaces (more is code).
 */
export function entryOfSource(item: ListItemLike, source: string): ListEntry {
  const match = MARKER.exec(source);
  if (!match) return entry(item, 0, DEFAULT_BULLET[item.type], 1);
  const indent = (match[1] ?? '').replace(/\t/g, '    ').length;
  const bullet = match[4] ?? match[2] ?? DEFAULT_BULLET[item.type];
  const number = match[3] === undefined ? 1 : Number(match[3]);
  const spaces = (match[5] ?? '').replace(/\t/g, '    ').length;
  const contentIndent = indent + (match[2] ?? '').length + (spaces >= 1 && spaces <= 4 ? spaces : 1);
  return { ...item, indent, bullet, number, contentIndent };
}
