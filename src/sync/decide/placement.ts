import { posix } from 'node:path';
import type { TreeNodeId } from '../../model/ids.js';
import type { Action, Layout, LocalEntry, RecordEntry, RemoteDoc } from './types.js';

/** The local folder a document belongs to: its directory, or the top for a flat knowledge base. */
export function folderOf(path: string, layout: Layout): string {
  if (layout === 'flat') return '';
  // posix.dirname for the relative, normalised paths kbsync keeps, without its per-call work (every settled row asks).
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** The title a local file gets in a flat knowledge base: its path without `.md`, so it stays unique. */
export function flatTitle(path: string): string {
  return path.replace(/\.md$/i, '');
}

/**
 * Does the document sit where the file's path asks for (its folder, and in a flat layout its title)?
 * Undefined when the folder is not known to this run (no listing, not in the ledger): nothing is moved then.
 */
export function fitsPlace(
  where: { readonly layout: Layout; readonly folderIds: ReadonlyMap<string, TreeNodeId>; readonly remote: { readonly rootId: TreeNodeId } | undefined },
  record: Pick<RecordEntry, 'parentTreeNodeId' | 'remoteTitle'>,
  path: string,
): boolean | undefined {
  if (where.layout === 'flat') return record.parentTreeNodeId === (where.remote?.rootId ?? record.parentTreeNodeId) && record.remoteTitle === flatTitle(path);
  const parent = where.folderIds.get(folderOf(path, where.layout));
  if (parent !== undefined) return parent === record.parentTreeNodeId;
  // A listed tree without that folder: it must be made, so the document is elsewhere.
  return where.remote ? false : undefined;
}

/** The longest title the service takes (the emulator's limit; the real one is not published, and this is a common one). */
export const MAX_TITLE_CHARS = 255;

/** `text` cut to at most `max` UTF-16 units, never in the middle of a character, with `…` where it was cut. */
export function fitTitle(text: string, max = MAX_TITLE_CHARS): string {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max - 1) break;
    out += char;
  }
  return `${out.trimEnd()}…`;
}

/** `Notes`, `Notes (2)`, `Notes (3)`… : the service refuses two documents of one name under one parent. */
export function uniqueName(wanted: string, taken: ReadonlySet<string>, normalise: (name: string) => string = (n) => n): string {
  const first = fitTitle(wanted);
  if (!taken.has(normalise(first))) return first;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${fitTitle(wanted, MAX_TITLE_CHARS - suffix.length)}${suffix}`;
    if (!taken.has(normalise(candidate))) return candidate;
  }
}

/**
 * The remote title of each local file that has no ledger row: its own title, made unique among its
 * remote siblings. Files are taken in path order so that two fresh clones of one folder assign the
 * same titles, which is what lets the second clone adopt instead of duplicating.
 */
export function assignTitles(
  unrecorded: readonly LocalEntry[],
  records: readonly RecordEntry[],
  layout: Layout,
): Map<string, string> {
  const taken = new Map<string, Set<string>>();
  const siblings = (folder: string): Set<string> => {
    let set = taken.get(folder);
    if (!set) taken.set(folder, (set = new Set()));
    return set;
  };
  for (const record of records) siblings(folderOf(record.path, layout)).add(record.remoteTitle);
  const titles = new Map<string, string>();
  for (const entry of [...unrecorded].sort((a, b) => compare(a.path, b.path))) {
    const wanted = layout === 'flat' ? flatTitle(entry.path) : (entry.title ?? posix.basename(entry.path, '.md'));
    const set = siblings(folderOf(entry.path, layout));
    const title = uniqueName(wanted, set);
    set.add(title);
    titles.set(entry.path, title);
  }
  return titles;
}

/** Remote documents with no ledger row, indexed by where a local twin would be: folder + title. */
export function indexUnrecordedRemote(
  docs: Iterable<RemoteDoc>,
  recordedKeys: ReadonlySet<string>,
  layout: Layout,
): Map<string, RemoteDoc> {
  const index = new Map<string, RemoteDoc>();
  for (const doc of docs) {
    if (recordedKeys.has(doc.docKey)) continue;
    index.set(placeKey(folderOf(doc.localPath, layout), doc.title), doc);
  }
  return index;
}

export const placeKey = (folder: string, title: string): string => `${folder}\u0000${title}`;

/** Plain code-point order: stable across machines and locales. */
export const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The local path an action is about: what reports show and what orders a plan. */
export function pathOf(action: Action): string {
  switch (action.kind) {
    case 'create':
    case 'adopt':
    case 'new-local':
    case 'trash-leftover':
      return action.path;
    case 'new-local-folder':
      return action.folder.localPath;
    case 'move':
    case 'move-local':
      return action.to;
    case 'held':
      return action.to ?? action.record.path;
    default:
      return action.record.path;
  }
}

/** Where the file was, for an action that moves it or its document: reports show `from → pathOf(action)`. */
export function formerPath(action: Action): string | undefined {
  if (action.kind !== 'move' && action.kind !== 'move-local' && action.kind !== 'held') return undefined;
  return action.to !== undefined && action.to !== action.record.path ? action.record.path : undefined;
}
