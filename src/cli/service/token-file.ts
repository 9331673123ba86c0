import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { createTokenSource, type TokenSourceConfig } from '../../config/index.js';
import { keyFingerprint } from '../../remote-state/token.js';
import { createStateKeySource } from '../../setup/state-key.js';

/** Where the installed service gets a secret from, and what install did about it (said to the person). */
type SecretSetup = { readonly file: string | undefined; readonly said: string };

type Context = { readonly env: NodeJS.ProcessEnv; readonly cwd: string };

/** Writes a secret where only this user can read it (0600, in a 0700 folder): beside, then moved, so it is never half written or readable by others. */
async function writePrivate(file: string, value: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fsp.chmod(path.dirname(file), 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(temp, `${value}\n`, { mode: 0o600 });
  await fsp.chmod(temp, 0o600);
  await fsp.rename(temp, file);
}

/** The token file the service will read: the one setUpToken writes, for a token kept in an environment variable. */
export const serviceTokenFile = (source: TokenSourceConfig, file: string): string | undefined => ('env' in source ? file : undefined);

/**
 * A service has no login shell, so a token kept in an environment variable would be gone: install writes it
 * to a file only this user can read and the service reads it from there. A token in a file or from a command
 * is left where the config says (the file is checked now, the command runs in the service). A missing token
 * fails here, before anything is written, with the token source's own message.
 */
export async function setUpToken(source: TokenSourceConfig, file: string, context: Context): Promise<SecretSetup> {
  const token = createTokenSource(source, { env: context.env, cwd: context.cwd });
  if ('env' in source) {
    await writePrivate(file, await token.get());
    return { file, said: `wrote the token from ${source.env} to ${file} (readable by you only); the service reads it there` };
  }
  if ('command' in source) return { file: undefined, said: `the service gets its token from the command in the config (service.token.command), run in the service's environment` };
  await token.get();
  return { file: undefined, said: `the service reads its token from ${token.description}, as the config says` };
}

/** The state key's side of an install: the file the unit names (undefined: none), what install says, and the write it makes once the unit can be written. */
type KeyPlan = { readonly file: string | undefined; readonly said: string; write(): Promise<void> };

/**
 * The team's state key, carried as the token is: one kept in an environment variable is written to a file
 * only this user can read, which the service reads (KBSYNC_STATE_KEY_FILE); one in the workspace's key file,
 * a file the config names or a command stays where it is. Read now (nothing written yet), so a key that
 * cannot be read fails before anything is. Without a key the service syncs as a team without one, and says
 * so; on a team whose state is signed it then stops with exit 3 and the reason in its log.
 */
export async function planStateKeyFile(source: TokenSourceConfig | null, file: string, context: Context & { readonly workspaceId: string }): Promise<KeyPlan> {
  const nothing = async (): Promise<void> => undefined;
  if (source !== null && 'command' in source) return { file: undefined, said: "the service gets the team's state key from the command in the config (state.key.command), run in its environment", write: nothing };
  const key = createStateKeySource(source, context);
  const value = await key.get();
  if (value === undefined) {
    return {
      file: undefined,
      said: `none (${key.description} gives none): the service syncs as a team without one; if the team's shared state is signed, it stops (exit 3) and its log says to set the key`,
      write: nothing,
    };
  }
  const fingerprint = keyFingerprint(value);
  if (source !== null && 'env' in source && key.description === `the environment variable ${source.env}`) {
    return { file, said: `wrote the team's key (fingerprint ${fingerprint}) from ${source.env} to ${file} (readable by you only); the service reads it there`, write: () => writePrivate(file, value) };
  }
  return { file: undefined, said: `the service reads the team's key (fingerprint ${fingerprint}) from ${key.description}`, write: nothing };
}
