import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { KbClient } from '../api/index.js';
import { parseTitle } from '../remote-state/documents.js';
import { STATE_FOLDER } from '../remote-state/store.js';
import { keyFingerprint } from '../remote-state/token.js';
import type { TreeNodeId } from '../model/ids.js';
import { checkedKey, defaultKeyFile, keepKey, shownPath } from '../setup/state-key.js';

/** What `kbsync init` and `kbsync clone` did about the team's state key: the lines that tell the user. */
type KeySetup = { readonly lines: readonly string[] };

/** Whether the shared state at a workspace's root (where `kbsync init` syncs) is signed with a key: its documents' titles say so. */
export async function stateIsSigned(client: KbClient, rootId: TreeNodeId): Promise<boolean> {
  for await (const node of client.listNodes(rootId)) {
    if (node.type !== 'FOLDER' || node.title !== STATE_FOLDER) continue;
    for await (const doc of client.listNodes(node.treeNodeId)) if (parseTitle(doc.title, undefined)?.signed === 'keyed') return true;
  }
  return false;
}

/**
 * The team's state key for a new configuration, kept where every later command finds it without a setting:
 * the workspace's key file on this machine (defaultKeyFile, 0600, never printed: terminals and CI logs keep
 * what they show). A key in KBSYNC_STATE_KEY is the team's: it is kept there (a later shell without the
 * variable still has it). Otherwise `make` (init) makes a new one, unless the file holds one already or the
 * workspace's state is `signed` (the team has a key: a new one would only be refused); a clone makes none
 * (the team has its key, or none). The config written names no key file: a committed config works
 * in CI, where KBSYNC_STATE_KEY holds the key.
 */
export async function setUpStateKey(env: NodeJS.ProcessEnv, workspaceId: string, options: { readonly make: boolean; readonly signed?: boolean }): Promise<KeySetup> {
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
  if (options.signed) {
    // A team that has its key already: a new one here would only be refused (STATE_KEY_WRONG) at the first sync.
    return {
      lines: [
        `This workspace's shared state is signed with its team's state key, which this machine does not have: put the team's key in ${shown} (copy it from a machine that syncs, readable by you alone), or set KBSYNC_STATE_KEY.`,
        'Until then a sync stops before it writes anything (STATE_KEY_NEEDED). `kbsync clone <folder URL>` with KBSYNC_STATE_KEY set keeps the key in that file for you.',
      ],
    };
  }
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
