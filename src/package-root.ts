import { existsSync } from 'node:fs';
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
