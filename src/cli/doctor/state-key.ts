import type { KbClient } from '../../api/index.js';
import type { Config } from '../../config/index.js';
import { silentLogger } from '../../log.js';
import { STATE_FOLDER } from '../../remote-state/store.js';
import { keyFingerprint } from '../../remote-state/token.js';
import { syncOptionsOf } from '../../setup/index.js';
import type { StateKeySource } from '../../setup/state-key.js';
import { workspaceRoot } from '../../sync/observe/observe.js';
import { openStateStore } from '../../sync/state/store.js';
import { describeTeam, TeamSettings } from '../../sync/state/team.js';
import type { Checks } from './checks.js';

/**
 * Whether the team's state key is configured and readable. No key is a warning, not a failure: a keyless
 * team syncs, and the warning says what it gives up. Returns the key (undefined: none), or null when the
 * configured source failed (a sync would stop the same way).
 */
export async function checkStateKey(checks: Checks, source: StateKeySource): Promise<string | undefined | null> {
  let key: string | undefined;
  try {
    key = await source.get();
  } catch (error) {
    checks.error('state key', error, `state key from ${source.description}`);
    return null;
  }
  if (key !== undefined) {
    checks.pass('state key', `state key from ${source.description} (fingerprint ${keyFingerprint(key)}): the shared state's records are signed and verified`);
    return key;
  }
  checks.warn(
    'state key',
    `no state key (${source.description} is not set): the shared state in the knowledge base is unauthenticated, so kbsync deletes no document on its word alone (a run without its ledger, such as CI, cannot delete or move documents)`,
    "Set the team's key in KBSYNC_STATE_KEY on every machine and as a CI secret (`kbsync init` makes one), or configure state.key.",
  );
  return undefined;
}

/**
 * Whether this machine can use the workspace's shared state as the team writes it: read with this machine's
 * key as a sync reads it (its listing, then the index), so a state signed with a key this machine lacks, or
 * with another, fails here with the code and exit sync would give (3), not at the first run that writes.
 */
export async function checkSharedState(checks: Checks, client: KbClient, config: Config, source: StateKeySource, secret: string | undefined): Promise<void> {
  try {
    const options = syncOptionsOf(config, { mode: 'two-way', dryRun: true, force: false });
    const rootId = await workspaceRoot(client, undefined, options, false);
    const team = new TeamSettings(options, { ledger: undefined, rootId }, { fingerprint: secret ? keyFingerprint(secret) : null, source: source.description });
    const store = openStateStore({ client, ledger: undefined, logger: silentLogger }, { workspaceId: options.workspaceId, rootId }, secret, { keySource: source.description, team });
    const loaded = await store.load();
    const documents = loaded.docs.length;
    const settings = loaded.state.team ? `; the team reads the folder with ${describeTeam(loaded.state.team)}, and this configuration agrees` : '; no team settings published yet (the next sync that writes it publishes this machine\'s)';
    if (documents === 0) checks.pass('shared state', `shared state: none yet in the ${STATE_FOLDER} folder (the first sync that changes something writes it${secret ? ', signed with this key' : ''})`);
    else checks.pass('shared state', `shared state: ${documents} document(s), ${loaded.state.entries.size} file(s) recorded, ${secret ? "read with this machine's key" : 'not signed (the team has no key)'}${settings}`);
  } catch (error) {
    checks.error('shared state', error, 'shared state');
  }
}
