import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { createSecretSource, homeFolder, type Env, type TokenSourceConfig } from '../config/index.js';
import { InputError, messageOf } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { invocation } from '../invocation.js';

/** The team's state key (config `state.key`), read once; undefined when the team has none. */
export type StateKeySource = {
  get(): Promise<string | undefined>;
  /** Where it comes from, for `kbsync doctor` and messages (never the key): where it was found once read. */
  readonly description: string;
};

/**
 * Keys taken out of a command's environment (the process's, in a `kbsync` process), by variable: a later
 * session of the same command (a daemon's reload) still finds them.
 */
const takenFrom = new WeakMap<Env, Map<string, string | undefined>>();

/** A key shorter than this is a typo or a placeholder, not 128 bits of randomness. */
const MIN_KEY_CHARS = 24;

/**
 * Where a workspace's key is kept on this machine (`kbsync init`, `clone` and `service install` write it,
 * 0600): `$XDG_CONFIG_HOME/kbsync/state-key-<workspace>`, else under `~/.config`. Found without configuration,
 * so a committed config names no home folder and works in CI, where KBSYNC_STATE_KEY holds the key.
 */
export function defaultKeyFile(env: Env, workspaceId: string): string {
  const config = env['XDG_CONFIG_HOME'] || path.join(homeFolder(env), '.config');
  return path.join(config, 'kbsync', `state-key-${workspaceId.replace(/[^A-Za-z0-9_-]/g, '_')}`);
}

/** `~/…` for a path in the home folder: what messages show. */
export const shownPath = (file: string, env: Env): string => {
  const home = homeFolder(env);
  return file.startsWith(`${home}/`) ? `~/${file.slice(home.length + 1)}` : file;
};

type KeyContext = { readonly env: Env; readonly cwd: string; readonly workspaceId: string };

/**
 * Reads the key like the token. An environment variable (the default: `KBSYNC_STATE_KEY`) that is unset
 * falls back to the workspace's key file on this machine (defaultKeyFile); neither means no key (a team
 * without one needs no setting). A file or command that gives none is an error, since it was configured on
 * purpose. Once read from the environment, the variable is removed from the command's environment (the
 * process's), so no command kbsync runs (image upload, notify, merge tool) inherits it.
 */
export function createStateKeySource(config: TokenSourceConfig | null, context: KeyContext): StateKeySource {
  if (config === null) return { get: async () => undefined, description: 'none (state.key is null)' };
  if ('env' in config) return envOrDefaultFile(config.env, context);
  const source = createSecretSource(config, { env: context.env, cwd: context.cwd }, { noun: 'the state key', short: 'state key', configKey: 'state.key', missing: 'STATE_KEY_MISSING', invalid: 'STATE_KEY_INVALID', commandFailed: 'STATE_KEY_MISSING' });
  return { description: source.description, get: async () => checkedKey(await source.get(), source.description) };
}

function envOrDefaultFile(variable: string, context: KeyContext): StateKeySource {
  const file = defaultKeyFile(context.env, context.workspaceId);
  let read: Promise<string | undefined> | undefined;
  let description = `the environment variable ${variable}, else the file ${shownPath(file, context.env)}`;
  return {
    get description() {
      return description;
    },
    get: () =>
      (read ??= Promise.resolve().then(async () => {
        const own = context.env === invocation().env;
        const taken = takenFrom.get(context.env) ?? new Map<string, string | undefined>();
        const value = own && taken.has(variable) ? taken.get(variable) : context.env[variable]?.trim();
        if (own) {
          takenFrom.set(context.env, taken.set(variable, value));
          delete invocation().env[variable];
        }
        if (value !== undefined && value !== '') {
          description = `the environment variable ${variable}`;
          return checkedKey(value, description);
        }
        const kept = await keyFile(file);
        if (kept === undefined) return undefined;
        description = `the file ${shownPath(file, context.env)}`;
        return checkedKey(kept, description);
      })),
  };
}

/** The key kept in `file`; undefined when there is no such file. */
async function keyFile(file: string): Promise<string | undefined> {
  try {
    return (await fsp.readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError('STATE_KEY_MISSING', `The state key file ${file} cannot be read: ${messageOf(error)}.`, {
      hint: 'Make it readable by you (chmod 600), or remove it if this workspace has no key.',
      cause: error,
    });
  }
}

/** Writes a key to `file` (0600, in a 0700 folder), unless one is there: what an existing file holds stays. Returns whether it wrote. */
export async function keepKey(file: string, key: string): Promise<boolean> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await fsp.writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
}

/** `value` as a key (registered as a secret), or STATE_KEY_INVALID naming `source`. */
export function checkedKey(value: string, source: string): string {
  registerSecret(value);
  if (value.length < MIN_KEY_CHARS || /\s/.test(value)) {
    throw new InputError('STATE_KEY_INVALID', `The state key from ${source} is not a key: it needs at least ${MIN_KEY_CHARS} characters and no spaces.`, {
      hint: 'Use the key `kbsync init` made (or make one with `openssl rand -base64 32`), the same on every machine and CI run of the team.',
    });
  }
  return value;
}
