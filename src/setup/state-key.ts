import { createSecretSource, type Env, type TokenSourceConfig } from '../config/index.js';
import { InputError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { invocation } from '../invocation.js';

/** The team's state key (config `state.key`), read once; undefined when the team has none. */
export type StateKeySource = {
  get(): Promise<string | undefined>;
  /** Where it comes from, for `kbsync doctor` (never the key). */
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
 * Reads the key like the token. An environment variable that is unset means no key (the default:
 * `KBSYNC_STATE_KEY`, so a team without one needs no setting); a file or command that gives none is an
 * error, since it was configured on purpose. Once read from the environment, the variable is removed from
 * the command's environment (the process's), so no command kbsync runs (image upload, notify, merge tool) inherits it.
 */
export function createStateKeySource(config: TokenSourceConfig | null, context: { readonly env: Env; readonly cwd: string }): StateKeySource {
  if (config === null) return { get: async () => undefined, description: 'none (state.key is null)' };
  if ('env' in config) {
    let read: Promise<string | undefined> | undefined;
    return {
      description: `the environment variable ${config.env}`,
      get: () =>
        (read ??= Promise.resolve().then(() => {
          const own = context.env === invocation().env;
          const taken = takenFrom.get(context.env) ?? new Map<string, string | undefined>();
          const value = own && taken.has(config.env) ? taken.get(config.env) : context.env[config.env]?.trim();
          if (own) {
            takenFrom.set(context.env, taken.set(config.env, value));
            delete invocation().env[config.env];
          }
          return value === undefined || value === '' ? undefined : checkedKey(value, `the environment variable ${config.env}`);
        })),
    };
  }
  const source = createSecretSource(config, { env: context.env, cwd: context.cwd }, { noun: 'the state key', short: 'state key', configKey: 'state.key', missing: 'STATE_KEY_MISSING', invalid: 'STATE_KEY_INVALID', commandFailed: 'STATE_KEY_MISSING' });
  return { description: source.description, get: async () => checkedKey(await source.get(), source.description) };
}

function checkedKey(value: string, source: string): string {
  registerSecret(value);
  if (value.length < MIN_KEY_CHARS || /\s/.test(value)) {
    throw new InputError('STATE_KEY_INVALID', `The state key from ${source} is not a key: it needs at least ${MIN_KEY_CHARS} characters and no spaces.`, {
      hint: 'Use the key `kbsync init` printed (or make one with `openssl rand -base64 32`), the same on every machine and CI run of the team.',
    });
  }
  return value;
}
