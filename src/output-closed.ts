/**
 * When the reader of kbsync's output goes away (`kbsync status | head`, a journald restart under a service), its
 * writes fail with EPIPE. A command that is done anyway exits at once (the entry's choice); one that outlives its
 * output, the daemon, takes the news instead, to stop and say why where it still can (its ledger).
 */
let taker: (() => void) | undefined;

/** `onClosed` runs (each time a write fails) instead of the entry's exit, until the function returned is called. */
export function takeOutputClosed(onClosed: () => void): () => void {
  taker = onClosed;
  return () => {
    if (taker === onClosed) taker = undefined;
  };
}

/** The output was closed: tells whoever took it, and says whether someone did. */
export function outputClosed(): boolean {
  if (!taker) return false;
  taker();
  return true;
}
