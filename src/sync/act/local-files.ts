import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KbsyncError } from '../../errors.js';
import {
  backupText,
  conflictCopyPath,
  lstatOrNull,
  readTextFile,
  statFingerprint,
  writeFileAtomic,
  type FileFingerprint,
  type TextFile,
} from '../../local/index.js';
import type { SyncContext } from '../run/context.js';
import { lineEndingsOf } from '../../markdown/line-endings.js';

/** The file as it is now: the copy read during the scan, or a fresh read. Undefined when it does not exist. */
export async function currentText(ctx: SyncContext, path: string): Promise<TextFile | undefined> {
  const cached = ctx.texts.get(path);
  if (cached) return cached;
  const text = await readTextFile(join(ctx.root, path), { displayPath: path }).catch((error: unknown) => {
    // Gone, or its folder gone, since the scan (deleted while the run went, even between a look and the read: soak
    // seed 502 said it UNEXPECTED): the caller holds it VANISHED, and the next run sees what is there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (text) ctx.texts.set(path, text);
  return text;
}

/** The fingerprint to record for a file we only read: the scan's, taken before the read, so an edit made since is seen next time. */
export async function fingerprintOf(ctx: SyncContext, path: string): Promise<FileFingerprint> {
  const scanned = ctx.scanned.get(path);
  if (scanned) return statFingerprint(scanned);
  const stat = await lstatOrNull(join(ctx.root, path));
  if (!stat) throw new KbsyncError('FILE_VANISHED', `"${path}" disappeared while it was being synced.`, { hint: 'Run the sync again.' });
  return statFingerprint(stat);
}

/**
 * Replaces a local file's content atomically, keeping its BOM, after backing up what it held (design rule
 * 3) and only if it still is what we read (rule 3: check before replacing). The text's line endings are the
 * decision's (see markdown/line-endings.ts): written exactly, so every machine writes the same bytes.
 */
export async function replaceLocal(ctx: SyncContext, path: string, before: TextFile | undefined, text: string): Promise<FileFingerprint> {
  if (before) await backupText(ctx.stateDir, 'local', path, before.text, { now: ctx.now() });
  const expect = before ? await fingerprintOf(ctx, path) : 'absent';
  const fingerprint = await writeFileAtomic(ctx.root, path, text, { expect, ...(before ? { bom: before.bom } : {}) });
  ctx.texts.set(path, { text, eol: lineEndingsOf(text) === 'crlf' ? 'crlf' : 'lf', bom: before?.bom ?? false });
  ctx.scanned.delete(path);
  return fingerprint;
}

/**
 * Writes the other side's version of a clashing document beside the local file; returns its path. A copy
 * of the same file with the same text already there (a run killed after writing it, before recording it)
 * is that copy: a second identical one would only be one more thing for the person to sort out.
 */
export async function writeConflictCopy(ctx: SyncContext, path: string, text: string): Promise<string> {
  const same = await existingCopyWith(ctx, path, text);
  if (same) return same;
  for (let attempt = 1; ; attempt++) {
    const copy = conflictCopyPath(path, ctx.now(), attempt);
    if ((await lstatOrNull(join(ctx.root, copy))) !== null) continue;
    await writeFileAtomic(ctx.root, copy, text, { expect: 'absent' });
    return copy;
  }
}

/** A conflict copy of `path` (any time stamp) that already holds exactly `text`, if there is one. */
async function existingCopyWith(ctx: SyncContext, path: string, text: string): Promise<string | undefined> {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const stem = `${path.slice(slash + 1).replace(/\.md$/i, '')}.conflict-`;
  const names = await readdir(join(ctx.root, dir)).catch(() => []);
  for (const name of names.filter((n) => n.startsWith(stem) && n.endsWith('.md')).sort()) {
    const copy = `${dir}${name}`;
    const held = await readTextFile(join(ctx.root, copy), { displayPath: copy }).catch(() => undefined);
    if (held?.text === text) return copy;
  }
  return undefined;
}
