import { posix } from 'node:path';
import { fitsPlace, fitTitle, flatTitle, folderOf } from './placement.js';
import type { LocalEntry, PlanInput, RecordEntry } from './types.js';

/** A document's place as a file's would be: its folder's local path and its title, uniquifying suffix dropped. */
export function placeOf(input: PlanInput, record: RecordEntry): string {
  const folder = [...input.folderIds].find(([, id]) => id === record.parentTreeNodeId)?.[0] ?? '\0';
  return `${folder}\0${stem(record.remoteTitle)}`;
}

/** The places (folder and title) of the files here that the shared state has no corroborated entry for. */
export function fittingFiles(input: PlanInput): Set<string> {
  const places = new Set<string>();
  for (const [path, local] of input.local) {
    const entry = input.shared?.get(path);
    if (entry && corroborated(input, entry, local, path, true)) continue;
    places.add(`${folderOf(path, input.layout)}\0${stem(wantedTitle(input, local, path))}`);
  }
  return places;
}

const stem = (title: string): string => title.replace(/ \(\d+\)$/, '');
export const wantedTitle = (input: Pick<PlanInput, 'layout'>, local: LocalEntry, path: string): string => fitTitle(input.layout === 'flat' ? flatTitle(path) : (local.title ?? posix.basename(path, '.md')));

/**
 * Without the team's key a shared-state entry is anyone's word: it pairs a file with a document only when
 * that document bears the title kbsync would give the file (and, `inPlace`, sits in the file's folder, or the
 * file is byte for byte the one the entry records: a document a keyless machine could not move stays in its
 * old folder, and pairing the very file it published there sends nothing the entry does not already say).
 * Otherwise the file is paired like any file with no shared history, by its title: a forged entry can then
 * neither send a file into another document nor trash a file for a document that is not its own. A document
 * renamed in the web editor is vouched for by its blocks instead (observe/rename-witness.ts).
 */
export function corroborated(input: PlanInput, record: RecordEntry, local: LocalEntry, path: string, inPlace: boolean): boolean {
  if (!input.sharedUnverified || !record.shared) return true;
  if (record.remoteTitle === '') return false;
  const placed = fitsPlace(input, record, path);
  const recordedFile = inPlace && local.hash === record.localHash;
  if (inPlace && placed === false && !recordedFile) return false;
  if (stem(record.remoteTitle) === stem(wantedTitle(input, local, path))) return true;
  // Where the document is (its folder, or the old folder of the very file the entry recorded, where a document
  // kbsync could not delete stays when its file moves: model seed 31005), then: a file named for the document's
  // title (below), or a document renamed in the web editor whose blocks are still the ones the entry recorded
  // (read this run, in observe). A record that only claims so, forged or stale, names blocks the document does
  // not hold (model seed 10003: CI made a second document of every renamed one).
  return (placed === true || recordedFile) && (namedForTitle(input, record, path) || record.renamedFrom !== undefined);
}

/** Whether the document bears the title kbsync would give the file, or (pulled) the file bears its title. */
export function titleFits(input: Pick<PlanInput, 'layout'>, record: Pick<RecordEntry, 'remoteTitle'>, local: LocalEntry, path: string): boolean {
  return stem(record.remoteTitle) === stem(wantedTitle(input, local, path)) || namedForTitle(input, record, path);
}

/**
 * A document made in the web editor is pulled to its folder under a file named for its title there, which
 * its heading need not match (a heading with badges reads back with their alt text): the file bearing that
 * name is the one a pull writes for it (model seed 1002: CI made a second document). Only a title that is a
 * file name as it is: the decision may not load the file-name rules (src/local).
 */
const namedForTitle = (input: Pick<PlanInput, 'layout'>, record: Pick<RecordEntry, 'remoteTitle'>, path: string): boolean =>
  input.layout === 'folders' && posix.basename(path, '.md') === record.remoteTitle;
