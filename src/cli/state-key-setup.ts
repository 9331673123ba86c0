import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { keyFingerprint } from '../remote-state/token.js';
import { checkedKey, defaultKeyFile, keepKey, shownPath } from '../setup/state-key.js';

/** What `kbsync init` and `kbsync clone` did about the team's state key: the lines that tell the user. */
type KeySetup = { readonly lines: readonly string[] };

/**
 * The team's state key for a new configuration, kept where every later command finds it without a setting:
 * the workspace's key file on this machine (defaultKeyFile, 0600, never printed: terminals and CI logs keep
 * what they show). A key in KBSYNC_STATE_KEY is the team's: it is kept there (a later shell without the
 * variable still has it). Otherwise `make` (init) makes a new one, unless the file holds one already; a clone
 * makes none (the team has its key, or none). The config written names no key file: a committed config works
 * in CI, where KBSYNC_STATE_KEY holds the key.
 */
export async function setUpStateKey(env: NodeJS.ProcessEnv, workspaceId: string, options: { readonly make: boolean }): Promise<KeySetup> {
  const file = defaultKeyFile(env, workspaceId);
  const shown = shownPath(file, env);
  const given = (env['KBSYNC_STATE_KEY'] ?? '').trim();
  if (given !== '') checkedKey(given, 'the environment variable KBSYNC_STATE_KEY');
  const kept = await fsp.readFile(file, 'utf8').then((text) => text.trim(), () => undefined);
  if (given !== '') {
    if (kept === undefined) {
      await keepKey(file, given);
      return { lines: [`The state key in KBSYNC_STATE_KEY (fingerprint ${keyFingerprint(given)}) signs the shared state; kept in ${shown} (readable by you alone), where kbsync finds it when the variable is unset.`] };
    }
    if (kept === given) return { lines: [`The state key in KBSYNC_STATE_KEY (fingerprint ${keyFingerprint(given)}) signs the shared state; ${shown} holds the same key.`] };
    return {
      lines: [
        `The state key in KBSYNC_STATE_KEY (fingerprint ${keyFingerprint(given)}) is used while it is set; ${shown} holds another (fingerprint ${keyFingerprint(kept)}), used when it is not.`,
        "Keep the team's key in both (or remove the file): `kbsync doctor` says which one the workspace's state is signed with.",
      ],
    };
  }
  if (kept !== undefined) return { lines: [`The team's state key (fingerprint ${keyFingerprint(kept)}) is in ${shown}: kbsync finds it there.`] };
  if (!options.make) return { lines: [] };
  const key = randomBytes(32).toString('base64url');
  await keepKey(file, key);
  return {
    lines: [
      `The team's state key (it signs kbsync's shared state in the knowledge base; fingerprint ${keyFingerprint(key)}) is in ${shown}, readable by you alone; kbsync finds it there.`,
      'Keep it like a password: give every machine of the team the same file (or KBSYNC_STATE_KEY), and CI the same value as a secret',
      `(the Action's state-key input). If your team already has a key, put that one in the file instead. See "Remote state" in the README.`,
    ],
  };
}
