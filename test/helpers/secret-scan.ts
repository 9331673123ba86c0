import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Every regular file below `dir` (symlinks not followed), as paths relative to `dir`. */
export async function filesBelow(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of await readdir(abs)) {
      const childAbs = join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const stat = await lstat(childAbs);
      if (stat.isDirectory()) await walk(childAbs, childRel);
      else if (stat.isFile()) out.push(childRel);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/**
 * The files below `dir` whose bytes hold any of `secrets`, searched as raw bytes (a SQLite page or
 * WAL frame is not text) in UTF-8 and UTF-16LE, the two encodings SQLite may store text in.
 */
export async function filesHolding(dir: string, secrets: readonly string[], skip: (rel: string) => boolean = () => false): Promise<string[]> {
  const needles = secrets.flatMap((secret) => [Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le')]);
  const found: string[] = [];
  for (const rel of await filesBelow(dir)) {
    if (skip(rel)) continue;
    const bytes = await readFile(join(dir, rel));
    if (needles.some((needle) => bytes.includes(needle))) found.push(rel);
  }
  return found;
}
