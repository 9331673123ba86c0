import { realpathSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { findProgram } from './find-program.js';
import { shellLine } from './quote.js';
import { invocation } from '../invocation.js';

/** This kbsync's entry point (bin/kbsync.js), absolute. */
export const kbsyncEntry = (): string => path.join(packageRoot(), 'bin', 'kbsync.js');

const realOrNull = (file: string): string | null => {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
};

/**
 * How a person runs this very kbsync from a shell: `kbsync` when that name on PATH is this installation,
 * else node and the absolute path of this copy's entry point. Never `npx kbsync`: outside a folder that
 * has kbsync installed, npx fetches whatever package of that name the registry holds.
 */
export function selfCommand(env: NodeJS.ProcessEnv = invocation().env): string {
  const onPath = findProgram('kbsync', env);
  const entry = kbsyncEntry();
  if (onPath && realOrNull(onPath) === realOrNull(entry)) return 'kbsync';
  return shellLine([process.execPath, entry]);
}
