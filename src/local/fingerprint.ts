import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Stats } from 'node:fs';

/**
 * What the stat fast path compares: a file whose size, mtime and inode are unchanged since the
 * last sync is not read at all. The inode catches an atomic save that kept size and mtime.
 */
export type FileFingerprint = {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly dev: number;
};

export function statFingerprint(stat: Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'dev'>): FileFingerprint {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev };
}

/**
 * `dev` is left out on purpose: it can change across a remount or reboot while the file did not,
 * and a spurious mismatch only costs a hash, never data.
 */
export function sameFingerprint(a: FileFingerprint | null | undefined, b: FileFingerprint | null | undefined): boolean {
  if (!a || !b) return false;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** sha256 (hex) of a file's bytes, streamed so a large file is never held in memory. */
export async function hashFile(absPath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absPath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** sha256 (hex) of text as kbsync writes it (UTF-8): to compare a body with a hashed file. */
export function hashText(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
