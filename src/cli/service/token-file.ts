import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { createTokenSource, type TokenSourceConfig } from '../../config/index.js';

/** Where the installed service gets its token from, and what install did about it (said to the person). */
type TokenSetup = { readonly file: string | undefined; readonly said: string };

/** The token file the service will read: the one setUpToken writes, for a token kept in an environment variable. */
export const serviceTokenFile = (source: TokenSourceConfig, file: string): string | undefined => ('env' in source ? file : undefined);

/**
 * A service has no login shell, so a token kept in an environment variable would be gone: install writes it
 * to a file only this user can read (0600, in a 0700 folder) and the service reads it from there. A token in
 * a file or from a command is left where the config says (the file is checked now, the command runs in the
 * service). A missing token fails here, before anything is written, with the token source's own message.
 */
export async function setUpToken(source: TokenSourceConfig, file: string, context: { readonly env: NodeJS.ProcessEnv; readonly cwd: string }): Promise<TokenSetup> {
  const token = createTokenSource(source, { env: context.env, cwd: context.cwd });
  if ('env' in source) {
    const value = await token.get();
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await fsp.chmod(path.dirname(file), 0o700);
    // Written beside, then moved: no moment where the file exists readable by others or half written.
    const temp = `${file}.${process.pid}.tmp`;
    await fsp.writeFile(temp, `${value}\n`, { mode: 0o600 });
    await fsp.chmod(temp, 0o600);
    await fsp.rename(temp, file);
    return { file, said: `wrote the token from ${source.env} to ${file} (readable by you only); the service reads it there` };
  }
  if ('command' in source) return { file: undefined, said: `the service gets its token from the command in the config (service.token.command), run in the service's environment` };
  await token.get();
  return { file: undefined, said: `the service reads its token from ${token.description}, as the config says` };
}
