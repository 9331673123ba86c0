import { redact } from '../secrets.js';

/**
 * The environment for a program kbsync starts for a person (a merge tool): this process's, without the
 * variables that hold the access token (design rule 9: the token never reaches a child process), whether
 * kbsync has read the token yet or not, plus `extra`.
 */
export function childEnv(env: NodeJS.ProcessEnv, tokenVariables: readonly string[], extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const drop = new Set(['KBSYNC_TOKEN', 'KBSYNC_SERVICE_TOKEN_VALUE', ...tokenVariables]);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    // A value that holds a secret kbsync registered (a token it read) goes too, whatever its name.
    if (value !== undefined && !drop.has(name) && redact(value) === value) out[name] = value;
  }
  return { ...out, ...extra };
}
