import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { InputError, messageOf } from '../errors.js';
import { commandEnv, redactTokenLike, registerSecret, registerSecretVariable } from '../secrets.js';
import type { Env } from './env.js';
import { resolveUserPath } from './home.js';
import type { TokenSourceConfig } from './schema.js';
import { invocation } from '../invocation.js';

export type TokenSource = {
  /** The token, read once and then cached. */
  get(): Promise<string>;
  /** Reads the token again (the service said it expired): re-runs the command, re-reads the file. */
  refresh(): Promise<string>;
  /** Where the token comes from, for messages (never the token). */
  readonly description: string;
};

type TokenSourceOptions = {
  readonly env?: Env;
  /** Folder relative token file paths start from (the config file's folder). */
  readonly cwd?: string;
  /** Longest a token command may run. Default 30 s. */
  readonly commandTimeoutMs?: number;
  /** Aborted when kbsync stops: a token command still running is stopped then (its reason is the error). */
  readonly signal?: AbortSignal;
};

/**
 * What a secret is called in messages, the codes its problems carry and where it is configured: the
 * access token and the state key are read the same way (env, file, command or value) and said apart.
 */
type SecretWords = {
  /** "the access token", "the state key". */
  readonly noun: string;
  /** "token", "state key": what the hints call it. */
  readonly short: string;
  /** The config key that sets the source (`service.token`, `state.key`). */
  readonly configKey: string;
  readonly missing: 'TOKEN_MISSING' | 'STATE_KEY_MISSING';
  readonly invalid: 'TOKEN_INVALID' | 'STATE_KEY_INVALID';
  readonly commandFailed: 'TOKEN_COMMAND_FAILED' | 'STATE_KEY_MISSING';
};

const TOKEN_WORDS: SecretWords = { noun: 'the access token', short: 'token', configKey: 'service.token', missing: 'TOKEN_MISSING', invalid: 'TOKEN_INVALID', commandFailed: 'TOKEN_COMMAND_FAILED' };

/** The access token from the configured source; registered as a secret so no log or error shows it. */
export function createTokenSource(config: TokenSourceConfig, options: TokenSourceOptions = {}): TokenSource {
  return createSecretSource(config, options, TOKEN_WORDS);
}

/** A secret from the configured source, read once and cached; registered so no log or error shows it. */
export function createSecretSource(config: TokenSourceConfig, options: TokenSourceOptions, words: SecretWords): TokenSource {
  const env = options.env ?? invocation().env;
  const read = readerFor(config, env, options, words);
  let cached: string | undefined;
  let inFlight: Promise<string> | undefined;
  const load = (): Promise<string> => {
    // Concurrent callers (many requests failing with "token expired" at once) share one read.
    inFlight ??= read()
      .then((token) => {
        registerSecret(token);
        cached = token;
        return token;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return {
    description: read.description,
    get: () => (cached !== undefined ? Promise.resolve(cached) : load()),
    refresh: load,
  };
}

type Reader = (() => Promise<string>) & { description: string };

function readerFor(config: TokenSourceConfig, env: Env, options: TokenSourceOptions, words: SecretWords): Reader {
  if ('env' in config) {
    registerSecretVariable(config.env);
    const source = `the environment variable ${config.env}`;
    const hint = `Set it (export ${config.env}=...), or configure ${words.configKey} in sync.config.json.`;
    return describe(source, async () => checked(env[config.env], source, hint, words));
  }
  if ('file' in config) {
    const file = resolveUserPath(options.cwd ?? invocation().cwd, config.file, env);
    const source = `the file ${file}`;
    const hint = `Write the ${words.short} as its only content (chmod 600), or fix ${words.configKey}.file.`;
    return describe(source, async () => {
      let text: string;
      try {
        text = await fsp.readFile(file, 'utf8');
      } catch (error) {
        throw new InputError(words.missing, `${capital(words.noun)} cannot be read from ${source}: ${messageOf(error)}.`, { hint, cause: error });
      }
      return checked(text, source, hint, words);
    });
  }
  if ('command' in config) {
    const command = config.command;
    return describe(`the command "${command}"`, () => runTokenCommand(command, env, options, words));
  }
  const source = `${words.configKey}.value in the configuration`;
  return describe(source, async () => checked(config.value, source, `Set a ${words.short} source in sync.config.json.`, words));
}

const capital = (text: string): string => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;

function runTokenCommand(command: string, env: Env, options: TokenSourceOptions, words: SecretWords): Promise<string> {
  const timeout = options.commandTimeoutMs ?? 30_000;
  const source = `the command "${command}"`;
  return new Promise((resolve, reject) => {
    const { signal } = options;
    execFile(
      '/bin/sh',
      ['-c', command],
      { timeout, env: commandEnv(env), cwd: options.cwd, maxBuffer: 1024 * 1024, encoding: 'utf8', windowsHide: true, ...(signal ? { signal } : {}) },
      (error, stdout, stderr) => {
        if (error && signal?.aborted) {
          reject(signal.reason instanceof Error ? signal.reason : error);
          return;
        }
        if (error) {
          const timedOut = error.killed === true && error.signal !== null;
          const why = timedOut ? `did not finish within ${timeout / 1000} s` : `failed (exit code ${String(error.code ?? error.signal)})`;
          // A line it printed before failing may be the token after all (a word without spaces): never shown, anywhere.
          for (const line of stdout.split('\n')) if (!/\s/.test(line.trim())) registerSecret(line.trim());
          // Its stderr may echo the token or other secrets: a short, redacted part of it only.
          const detail = redactTokenLike(stderr.trim()).slice(0, 200);
          reject(
            new InputError(words.commandFailed, `The ${words.short} command "${command}" ${why}${detail ? `: ${detail}` : ''}.`, {
              hint: `Run it by hand to check it prints the ${words.short}, or fix ${words.configKey}.command.`,
            }),
          );
          return;
        }
        // Like `pass show`, the token is the first line; later lines are metadata.
        const firstLine = stdout.split('\n').find((line) => line.trim() !== '') ?? '';
        try {
          resolve(checked(firstLine, source, `Make it print the ${words.short} on its first line.`, words));
        } catch (problem) {
          reject(problem instanceof Error ? problem : new Error(String(problem)));
        }
      },
    );
  });
}

function checked(value: string | undefined, source: string, hint: string, words: SecretWords): string {
  const token = value?.trim() ?? '';
  if (token === '') throw new InputError(words.missing, `${capital(words.noun)} is missing: ${source} gave none (unset or empty).`, { hint });
  // A line break would let the token inject headers; other control characters are never valid.
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(token)) {
    registerSecret(token);
    throw new InputError(words.invalid, `${capital(words.noun)} from ${source} holds a line break or control character, so it cannot be a ${words.short}.`, { hint });
  }
  return token;
}

function describe(description: string, read: () => Promise<string>): Reader {
  return Object.assign(read, { description });
}
