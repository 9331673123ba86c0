/**
 * What kbsync accepts from the service, at most (DESIGN rule 14): a broken or hostile service can make a
 * run fail with a clear error, never hang it, flood it or fill its memory. The README's security section
 * lists these numbers; each is far above anything the real service sends.
 */
export const SERVICE_LIMITS = {
  /**
   * Bytes of one answer. The largest real answers are a listing page (50 nodes, tens of KB) and the blocks
   * of a 50,000-character body (a few hundred KB). A longer answer is refused while it streams in.
   */
  answerBytes: 16 * 1024 * 1024,
  /**
   * Longest wait a throttle answer (`Retry-After`) is obeyed for. A service that asks for more is not
   * waited for: the call fails at once with API_THROTTLED, saying when to try again.
   */
  retryAfterMs: 60_000,
  /** Pages of one listing (of one folder, the workspaces, a search): 1,000 pages of 50 is 50,000 nodes. */
  pagesPerListing: 1000,
  /**
   * Empty pages in a row, each with a new nextToken, after which a listing is refused. A page comes back
   * empty with more to come only where a service pages first and filters after (nodes the operator may not
   * see): now and then, not five times running (250 hidden nodes in a row at 50 a page). A listing of
   * nothing without end then costs five calls, not the thousand pages of pagesPerListing.
   */
  emptyPagesInARow: 5,
  /** Folders nested in the synced tree, counted from the synced root. */
  listingDepth: 64,
  /** Nodes (documents and folders) in the whole synced tree. */
  listingNodes: 200_000,
  /** Characters of the service's own words (an error message) quoted in kbsync's messages. */
  quotedChars: 300,
} as const;
