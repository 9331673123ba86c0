import type { Ledger } from '../../ledger/index.js';
import type { ActionResult } from '../run/executor.js';

/**
 * A push lists nothing when it need not (every file recorded), so a document gone from the knowledge base
 * shows only as a read that finds nothing (API_NOT_FOUND). Gone may mean deleted, or replaced by another
 * writer (a move elsewhere makes a new document): which, and what to do, only a listing with the shared state
 * tells, so the push does not guess (a re-create beside the replacement would be a duplicate, model seed
 * 230005). It reports the failure, and the next push lists: it then follows the replacement, or re-creates a
 * document that was deleted.
 */
const LIST_NEXT_KEY = 'push.listNext';

export const listNext = (ledger: Ledger | undefined): boolean => ledger?.meta.get(LIST_NEXT_KEY) === true;

/** After a run: a read that found a document gone asks the next push to list; a run that listed it all answers that. */
export function rememberListing(ledger: Ledger, listed: boolean, results: readonly ActionResult[]): void {
  const gone = results.some((result) => !result.ok && result.code === 'API_NOT_FOUND');
  // Only when it changes: any write to the meta drops the settled-tree fingerprint.
  if (gone && !listed && !listNext(ledger)) ledger.meta.set(LIST_NEXT_KEY, true);
  else if (listed && !gone && listNext(ledger)) ledger.meta.delete(LIST_NEXT_KEY);
}
