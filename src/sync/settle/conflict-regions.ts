import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { diff3Merge } from 'node-diff3';
import type { Ledger } from '../../ledger/index.js';
import { backupText, hashText, lstatOrNull, readTextFile, statFingerprint, writeFileAtomic, type TextFile } from '../../local/index.js';

/** One region of a conflict: where the two versions agree, or a clash with the text of each side. */
export type Region =
  | { readonly kind: 'same'; readonly lines: readonly string[] }
  | { readonly kind: 'clash'; readonly base: readonly string[]; readonly mine: readonly string[]; readonly theirs: readonly string[]; readonly line: number };

/**
 * An open conflict: the file (yours), its conflict copy (the knowledge base's), and the text the clash was found
 * against (BodyDecision.conflictBase: the version both agreed on before, or both branches were made from).
 */
export type OpenConflict = {
  readonly path: string;
  readonly copy: string;
  readonly base: string;
  readonly mine: string;
  readonly theirs: string;
  readonly regions: readonly Region[];
  /** How the file is written (line endings, BOM), to write the settled text the same way. */
  readonly format: Pick<TextFile, 'eol' | 'bom'>;
};

export type Choice = 'mine' | 'theirs' | 'both';

/** The conflicts waiting for a person: records with a conflict whose copy is still on disk. */
export async function openConflicts(ledger: Ledger, root: string, only?: ReadonlySet<string>): Promise<OpenConflict[]> {
  const out: OpenConflict[] = [];
  for (const summary of ledger.documents.allSummaries()) {
    if (!summary.conflict || summary.conflictPath === null || (only && !only.has(summary.path))) continue;
    const copyAbs = join(root, summary.conflictPath);
    const fileAbs = join(root, summary.path);
    if ((await lstatOrNull(copyAbs)) === null || (await lstatOrNull(fileAbs)) === null) continue;
    const record = ledger.documents.get(summary.path);
    const base = record?.conflictBase ?? record?.baseMarkdown ?? '';
    const file = await readTextFile(fileAbs, { displayPath: summary.path });
    const theirs = (await readTextFile(copyAbs, { displayPath: summary.conflictPath })).text;
    out.push({ path: summary.path, copy: summary.conflictPath, base, mine: file.text, theirs, regions: regionsOf(base, file.text, theirs), format: { eol: file.eol, bom: file.bom } });
  }
  return out;
}

const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/**
 * A line-by-line three-way merge (git's diff3): the regions where both versions agree, and the clashes.
 * Clashes parted only by blank lines are one clash: in Markdown those are neighbouring paragraphs of one edit.
 */
function regionsOf(base: string, mine: string, theirs: string): Region[] {
  const parts: Region[] = [];
  for (const part of diff3Merge(linesOf(mine), linesOf(base), linesOf(theirs))) {
    if ('ok' in part && part.ok) parts.push({ kind: 'same', lines: part.ok });
    else if (part.conflict) parts.push({ kind: 'clash', base: part.conflict.o, mine: part.conflict.a, theirs: part.conflict.b, line: 0 });
  }
  const joined: Region[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const previous = joined.at(-1);
    const next = parts[i + 1];
    if (part.kind === 'same' && previous?.kind === 'clash' && next?.kind === 'clash' && part.lines.every((l) => l.trim() === '')) {
      joined[joined.length - 1] = {
        ...previous,
        base: [...previous.base, ...part.lines, ...next.base],
        mine: [...previous.mine, ...part.lines, ...next.mine],
        theirs: [...previous.theirs, ...part.lines, ...next.theirs],
      };
      i++;
    } else joined.push(part);
  }
  let line = 1;
  return joined.map((region) => {
    const at = line;
    line += region.kind === 'same' ? region.lines.length : region.mine.length;
    return region.kind === 'clash' ? { ...region, line: at } : region;
  });
}

/** The text made of one choice per clash (in order). */
export function resolved(regions: readonly Region[], choose: (clash: Extract<Region, { kind: 'clash' }>, index: number) => Choice): string {
  const lines: string[] = [];
  let index = 0;
  for (const region of regions) {
    if (region.kind === 'same') {
      lines.push(...region.lines);
      continue;
    }
    const choice = choose(region, index++);
    if (choice !== 'theirs') lines.push(...region.mine);
    // Both: one after the other, as separate blocks (run together they would read as one paragraph).
    if (choice === 'both' && region.mine.length > 0 && region.theirs.length > 0 && region.mine.at(-1)?.trim() !== '') lines.push('');
    if (choice !== 'mine') lines.push(...region.theirs);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The marker lines a merge tool's MERGED file starts with around each clash (git's, with kbsync's labels). */
const MARKERS = { mine: '<<<<<<< yours', middle: '=======', theirs: '>>>>>>> theirs (the knowledge base)' } as const;

/**
 * The text a merge tool starts from, as git mergetool's MERGED: what both versions agree on, and each clash
 * between conflict markers, so a tool that saves nothing leaves the markers (and settles nothing).
 */
export function markedText(regions: readonly Region[]): string {
  const lines = regions.flatMap((region) => (region.kind === 'same' ? region.lines : [MARKERS.mine, ...region.mine, MARKERS.middle, ...region.theirs, MARKERS.theirs]));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The first line (1-based) still holding one of kbsync's conflict markers, or undefined. */
export function markerLine(text: string): number | undefined {
  const at = text.split('\n').findIndex((line) => line === MARKERS.mine || line === MARKERS.theirs);
  return at === -1 ? undefined : at + 1;
}

/**
 * Writes the settled text into the file (atomically, only if the file is still what was read) and removes the
 * conflict copy; both are backed up first, so settling can be undone. The next sync publishes the file.
 */
export async function settle(deps: { readonly ledger: Ledger; readonly root: string; readonly stateDir: string; readonly readonly?: boolean }, conflict: OpenConflict, text: string): Promise<void> {
  const fileAbs = join(deps.root, conflict.path);
  const copyAbs = join(deps.root, conflict.copy);
  const now = new Date();
  await backupText(deps.stateDir, 'local', conflict.path, conflict.mine, { now });
  await backupText(deps.stateDir, 'local', conflict.copy, conflict.theirs, { now });
  const before = await lstatOrNull(fileAbs);
  if (text !== conflict.mine) await writeFileAtomic(deps.root, conflict.path, text, { ...conflict.format, ...(before ? { expect: statFingerprint(before) } : {}) });
  await rm(copyAbs, { force: true });
  // The person saw both versions and chose this text: it is published as settled, as `resolve --mine` would
  // publish it (not held again because the knowledge base's side was read as plain text). Releases are the
  // one table written beside a running daemon.
  const record = deps.ledger.documents.summary(conflict.path);
  deps.ledger.releases.put({ path: conflict.path, side: 'mine', localHash: hashText(text), remoteTime: record?.remoteModifiedTime ?? '', requestedAt: now.getTime() });
  // With the daemon holding the ledger, the copy's removal and the release are the whole answer: its next
  // cycle finds the conflict settled (no copy) and publishes the file, which records the end of the conflict.
  if (deps.readonly) return;
  deps.ledger.documents.update(conflict.path, { conflict: false, conflictPath: null, conflictBase: null, publishedOver: null, heldCode: null, heldLocalHash: null, heldRemoteTime: null });
}
