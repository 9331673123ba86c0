import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding kbsync's package.json, found by walking up from this module: the same answer
 * whether kbsync runs from source, from dist/, or from the bundled CLI.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('kbsync cannot find its own package.json; reinstall it.');
    dir = parent;
  }
  return dir;
}

let version: string | undefined;

/** kbsync's version, from its package.json (read once). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
