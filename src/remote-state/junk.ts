/**
 * What a run found in the state folder that it did not use: someone else's text in a state document, a
 * token that is not whole, one the team's key does not verify, a record out of bounds, a document that is
 * not kbsync's or that a run does not read. None of it stops a run (the verified records are used), and
 * it is said once per run and shown by `kbsync state`.
 */
export type StateJunk = {
  /** Whole tokens not verified by the team's key (unsigned, or signed with another key). */
  unverifiedTokens: number;
  /** Tokens that are not whole or do not read (text changed or added by hand). */
  damagedTokens: number;
  /** Records that failed their check (a path outside the synced set, a URL that is not http(s), ...). */
  droppedRecords: number;
  /** Documents with a state title that the team's key does not sign: not read at all. */
  unverifiedDocs: string[];
  /** Without a key: documents titled as a kbsync with a key titles its state, holding none of what it writes (read, not used). */
  keyedLookalikes: string[];
  /** State documents a run did not read: beyond what one run reads, or after several in a row that held nothing kbsync wrote. */
  unreadDocs: number;
  /** Documents longer than kbsync writes: only their start was read. */
  oversized: string[];
  /** Documents holding any of the above. */
  docs: string[];
};

export const emptyJunk = (): StateJunk => ({ unverifiedTokens: 0, damagedTokens: 0, droppedRecords: 0, unverifiedDocs: [], keyedLookalikes: [], unreadDocs: 0, oversized: [], docs: [] });

/** Nothing found: the line is not said. */
export const hasJunk = (junk: StateJunk): boolean =>
  junk.unverifiedTokens + junk.damagedTokens + junk.droppedRecords + junk.unverifiedDocs.length + junk.keyedLookalikes.length + junk.unreadDocs + junk.oversized.length > 0;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One sentence saying what was left out, at most a few names (the rest counted). */
export function describeJunk(junk: StateJunk): string {
  const parts = [
    junk.unverifiedTokens > 0 ? `${plural(junk.unverifiedTokens, 'piece')} the team's state key does not verify` : '',
    junk.damagedTokens > 0 ? `${plural(junk.damagedTokens, 'piece')} that are not kbsync's or were changed by hand` : '',
    junk.droppedRecords > 0 ? `${plural(junk.droppedRecords, 'record')} with paths, ids or URLs kbsync never writes` : '',
    junk.unverifiedDocs.length > 0 ? `${plural(junk.unverifiedDocs.length, 'document')} whose title the key does not sign (not read)` : '',
    junk.keyedLookalikes.length > 0
      ? `${plural(junk.keyedLookalikes.length, 'document')} titled as a kbsync with a state key titles its state, with none of its signed pieces in ${junk.keyedLookalikes.length === 1 ? 'it' : 'them'} (someone else's: not used)`
      : '',
    junk.unreadDocs > 0 ? `${plural(junk.unreadDocs, 'more document')} not read (past the newest ones a run reads, or after documents that held nothing kbsync wrote)` : '',
    junk.oversized.length > 0 ? `${plural(junk.oversized.length, 'document')} longer than kbsync writes (only the start read)` : '',
  ].filter(Boolean);
  const named = [...new Set([...junk.docs, ...junk.keyedLookalikes, ...junk.oversized])];
  const where = named.length > 0 ? ` (in ${named.slice(0, 3).join(', ')}${named.length > 3 ? ` and ${named.length - 3} more` : ''})` : '';
  return `kbsync's state in the knowledge base holds ${parts.join(', ')}${where}: left out, and syncing goes on with the rest.`;
}
