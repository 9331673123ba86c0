import type { Ledger } from '../../ledger/index.js';
import type { TeamRecord } from '../../remote-state/records.js';
import type { RemoteStateStore } from '../../remote-state/store.js';
import { rewriteState } from './rewrite.js';

/**
 * `kbsync state rotate-key`: the team's shared state written anew, signed with a new key, from this machine's
 * ledger and what the old key verifies of the old state (rewrite.ts); the old documents are retired by the new
 * state, which carries their creation ids, so the first run with the new key after the grace period deletes
 * them. Then the old state is told, in a record the old key signs, which key the team signs with now: a
 * machine that still has the old key reads it and stops (STATE_KEY_WRONG, naming the new key's fingerprint)
 * instead of writing a state the team leaves out. What such a machine wrote into the old state meanwhile (a
 * run that appended within the last minutes, without a read) is in its ledger, which publishes it again once
 * the machine has the new key.
 */
export async function rotateKey(
  ledger: Ledger,
  stores: { readonly from: RemoteStateStore; readonly to: RemoteStateStore },
  newFingerprint: string,
  team: (held: TeamRecord | undefined) => TeamRecord,
): Promise<Awaited<ReturnType<typeof rewriteState>>> {
  const done = await rewriteState(ledger, stores, (held) => ({ ...team(held), key: newFingerprint }));
  await stores.from.publish([{ ...done.team, key: newFingerprint }]);
  return done;
}
