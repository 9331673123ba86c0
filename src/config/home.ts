import os from 'node:os';
import path from 'node:path';
import type { Env } from './env.js';

/** `~` and `~/x` are the user's home folder, as a shell would read them; relative paths resolve from `base`. */
export function resolveUserPath(base: string, value: string, env: Env): string {
  if (value === '~' || value.startsWith('~/')) return path.join(env['HOME'] ?? os.homedir(), value.slice(1));
  return path.resolve(base, value);
}
