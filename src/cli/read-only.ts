import { KbsyncError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import { inspect, type Inspection } from '../sync/views/inspect.js';
import type { SyncMode } from '../sync/decide/types.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from './session.js';

type ReadOnlyRun = { readonly session: Session; readonly ledger: Ledger | undefined; readonly inspection: Inspection };

/**
 * For commands that only look (status, diff, search): the ledger opened read-only and without the lock,
 * so they work while `kbsync watch` or a sync holds it; before the first sync there is no ledger at all.
 */
export async function withReadOnlyLedger<T>(session: Session, fn: (ledger: Ledger | undefined) => Promise<T>): Promise<T> {
  let ledger: Ledger | undefined;
  try {
    ledger = openSyncLedger(session, { readonly: true });
  } catch (error) {
    if (!(error instanceof KbsyncError && error.code === 'LEDGER_MISSING')) throw error;
  }
  try {
    return await fn(ledger);
  } finally {
    ledger?.close();
  }
}

/** Opens the session and the ledger read-only, observes both sides and plans a `mode` sync, then runs `fn`. */
export async function withInspection<T>(
  flags: { readonly config?: string | undefined; readonly mode: SyncMode; readonly offline: boolean },
  fn: (run: ReadOnlyRun) => Promise<T>,
): Promise<T> {
  const session = await openSession({ config: flags.config, quiet: true });
  return withReadOnlyLedger(session, async (ledger) => {
    const options = syncOptionsOf(session.config, { mode: flags.mode, dryRun: true, force: false });
    const inspection = await inspect({ client: session.client, ledger }, { ...options, stateKey: session.stateKey, offline: flags.offline });
    return fn({ session, ledger, inspection });
  });
}
