import { keyFingerprint } from '../../remote-state/token.js';
import type { StateKeySource } from '../../setup/state-key.js';
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
