import os from 'node:os';
import path from 'node:path';
import type { Env } from './env.js';

/** The user's home folder as `env` has it (HOME), else as the system has it. */
export const homeFolder = (env: Env): string => env['HOME'] ?? os.homedir();

/** `~` and `~/x` are the user's home folder, as a shell would read them; relative paths resolve from `base`. */
export function resolveUserPath(base: string, value: string, env: Env): string {
  if (value === '~' || value.startsWith('~/')) return path.join(homeFolder(env), value.slice(1));
  return path.resolve(base, value);
}
