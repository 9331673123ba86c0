import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { InputError, messageOf } from '../errors.js';
import { commandEnv, redactTokenLike, registerSecret, registerSecretVariable } from '../secrets.js';
import type { Env } from './env.js';
import { resolveUserPath } from './home.js';
import type { TokenSourceConfig } from './schema.js';

export type TokenSource = {
  /** The token, read once and then cached. */
  get(): Promise<string>;
  /** Reads the token again (the service said it expired): re-runs the command, re-reads the file. */
  refresh(): Promise<string>;
  /** Where the token comes from, for messages (never the token). */
  readonly description: string;
};

export type TokenSourceOptions = {
  readonly env?: Env;
  /** Folder relative token file paths start from (the config file's folder). */
  readonly cwd?: string;
  /** Longest a token command may run. Default 30 s. */
  readonly commandTimeoutMs?: number;
  /** Aborted when kbsync stops: a token command still running is stopped then (its reason is the error). */
  readonly signal?: AbortSignal;
};

/** The access token from the configured source; registered as a secret so no log or error shows it. */
export function createTokenSource(config: TokenSourceConfig, options: TokenSourceOptions = {}): TokenSource {
  const env = options.env ?? process.env;
  const read = readerFor(config, env, options);
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

function readerFor(config: TokenSourceConfig, env: Env, options: TokenSourceOptions): Reader {
  if ('env' in config) {
    registerSecretVariable(config.env);
    const source = `the environment variable ${config.env}`;
    const hint = `Set it (export ${config.env}=...), or configure service.token in sync.config.json.`;
    return describe(source, async () => checked(env[config.env], source, hint));
  }
  if ('file' in config) {
    const file = resolveUserPath(options.cwd ?? process.cwd(), config.file, env);
    const source = `the file ${file}`;
    const hint = 'Write the token as its only content (chmod 600), or fix service.token.file.';
    return describe(source, async () => {
      let text: string;
      try {
        text = await fsp.readFile(file, 'utf8');
      } catch (error) {
        throw new InputError('TOKEN_MISSING', `The access token cannot be read from ${source}: ${messageOf(error)}.`, { hint, cause: error });
      }
      return checked(text, source, hint);
    });
  }
  if ('command' in config) {
    const command = config.command;
    return describe(`the command "${command}"`, () => runTokenCommand(command, env, options));
  }
  const source = 'service.token.value in the configuration';
  return describe(source, async () => checked(config.value, source, 'Set a token source in sync.config.json.'));
}

function runTokenCommand(command: string, env: Env, options: TokenSourceOptions): Promise<string> {
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
            new InputError('TOKEN_COMMAND_FAILED', `The token command "${command}" ${why}${detail ? `: ${detail}` : ''}.`, {
              hint: 'Run it by hand to check it prints the token, or fix service.token.command.',
            }),
          );
          return;
        }
        // Like `pass show`, the token is the first line; later lines are metadata.
        const firstLine = stdout.split('\n').find((line) => line.trim() !== '') ?? '';
        try {
          resolve(checked(firstLine, source, 'Make it print the token on its first line.'));
        } catch (problem) {
          reject(problem instanceof Error ? problem : new Error(String(problem)));
        }
      },
    );
  });
}

function checked(value: string | undefined, source: string, hint: string): string {
  const token = value?.trim() ?? '';
  if (token === '') throw new InputError('TOKEN_MISSING', `The access token is missing: ${source} gave none (unset or empty).`, { hint });
  // A line break would let the token inject headers; other control characters are never valid.
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(token)) {
    registerSecret(token);
    throw new InputError('TOKEN_INVALID', `The access token from ${source} holds a line break or control character, so it cannot be a token.`, { hint });
  }
  return token;
}

function describe(description: string, read: () => Promise<string>): Reader {
  return Object.assign(read, { description });
}
