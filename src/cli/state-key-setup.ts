import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { homeFolder, type TokenSourceConfig } from '../config/index.js';

/** What `kbsync init` configures for the team's state key, and the lines that tell the user what to do with it. */
type KeySetup = { readonly config: TokenSourceConfig | undefined; readonly lines: readonly string[] };

/**
 * The team's state key for a new configuration. A key in the environment (KBSYNC_STATE_KEY) is the
 * team's: it is used as it is. Otherwise a new one is made and written, readable by this user alone, to
 * a file outside the synced folder (never printed: terminals and CI logs keep what they show), and the
 * configuration reads it from there. Every machine and CI run of the team needs the same key.
 */
export async function setUpStateKey(env: NodeJS.ProcessEnv, workspaceId: string): Promise<KeySetup> {
  if ((env['KBSYNC_STATE_KEY'] ?? '').trim() !== '') {
    return { config: undefined, lines: ['The state key in KBSYNC_STATE_KEY signs the shared state: give every machine and CI run of the team the same one.'] };
  }
  const dir = path.join(env['XDG_CONFIG_HOME'] ?? path.join(homeFolder(env), '.config'), 'kbsync');
  const file = path.join(dir, `state-key-${workspaceId.replace(/[^A-Za-z0-9_-]/g, '_')}`);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await fsp.writeFile(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // A key made for this workspace before (another folder, an earlier init) stays the team's key.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return {
    config: { file },
    lines: [
      `The team's state key (it signs kbsync's shared state in the knowledge base) is in ${file}, readable by you alone.`,
      'Keep it like a password: give every machine of the team the same file (or KBSYNC_STATE_KEY), and CI the same value as a secret',
      `(the Action's state-key input). If your team already has a key, put that one in the file instead. See "Remote state" in the README.`,
    ],
  };
}
