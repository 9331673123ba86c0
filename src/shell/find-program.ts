import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { invocation } from '../invocation.js';

/**
 * The executable file `name` runs as from a shell with this PATH (`command -v`, without a shell), or
 * undefined when none is found. A name with a slash is taken as a path.
 */
export function findProgram(name: string, env: NodeJS.ProcessEnv = invocation().env): string | undefined {
  const candidates = name.includes('/') ? [path.resolve(invocation().cwd, name)] : (env['PATH'] ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there, or not executable: the next folder of PATH
    }
  }
  return undefined;
}
