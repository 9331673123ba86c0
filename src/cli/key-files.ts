import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { resolveUserPath } from '../config/home.js';
import { InputError } from '../errors.js';
import { invocation } from '../invocation.js';
import { checkedKey, defaultKeyFile, keepKey, shownPath } from '../setup/state-key.js';
import type { Session } from './session.js';

/**
 * Where `kbsync state rotate-key` keeps the new key: where this machine reads its key from, when that is a
 * file (the one state.key names, else the workspace's key file), so the next run here reads the new one. A key
 * this machine reads from a variable or a command is one kbsync cannot change: the new one goes to the
 * workspace's key file, and `note` says what to do about the old source.
 */
export function newKeyPlace(session: Session): { readonly file: string; readonly note?: string } {
  const { config, configPath } = session;
  const env = invocation().env;
  const source = config.state.key;
  if (source !== null && 'file' in source) return { file: resolveUserPath(configPath ? path.dirname(configPath) : invocation().cwd, source.file, env) };
  const file = defaultKeyFile(env, config.workspaceId);
  if (source !== null && 'command' in source) return { file, note: `state.key runs a command, which still gives the old key: make it give the one in ${shownPath(file, env)}.` };
  if (source !== null && 'value' in source) return { file, note: `state.key.value in the configuration still holds the old key: remove it (kbsync then reads ${shownPath(file, env)}).` };
  if (session.stateKey.description.startsWith('the environment variable')) {
    return { file, note: `${session.stateKey.description.replace('the environment variable ', '')} in this shell still holds the old key: unset it (kbsync then reads ${shownPath(file, env)}) or set it to the new key.` };
  }
  return { file };
}

/**
 * The new key: the one a rotation cut short kept as `<file>.new` (so running it again finishes the same
 * rotation), else KBSYNC_NEW_STATE_KEY, else a new one made; kept as `<file>.new` (0600) before anything is
 * written with it, so it is never lost.
 */
export async function pendingKey(file: string, old: string): Promise<string> {
  const pending = `${file}.new`;
  const kept = await fsp.readFile(pending, 'utf8').then((text) => text.trim(), () => undefined);
  const given = (invocation().env['KBSYNC_NEW_STATE_KEY'] ?? '').trim();
  const key = checkedKey(kept || given || randomBytes(32).toString('base64url'), kept ? `the file ${pending}` : given ? 'the environment variable KBSYNC_NEW_STATE_KEY' : 'a new key');
  if (key === old) {
    throw new InputError('STATE_KEY_INVALID', 'The new state key is the one the team has now: a rotation needs another.', { hint: 'Unset KBSYNC_NEW_STATE_KEY (a new key is made), or give it another key.' });
  }
  if (!kept) await keepKey(pending, key);
  return key;
}

/** The rotation is done: the new key takes the key file's place, the old one kept beside it as `.previous`. */
export async function swapKeyFiles(file: string): Promise<void> {
  await fsp.rename(file, `${file}.previous`).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  await fsp.rename(`${file}.new`, file);
}
