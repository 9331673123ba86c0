/** Resolves at the first SIGINT (Ctrl+C) or SIGTERM, and stops listening: long-running commands end cleanly on either. */
export function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

type StopTrap = {
  /** Aborted at the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The signal received, if any. */
  received(): NodeJS.Signals | undefined;
  /** Stops listening (the default action applies again). */
  release(): void;
};

/**
 * For a run that should stop between steps: the first SIGINT or SIGTERM aborts `signal` (the work under
 * way finishes and is recorded, and the command reports what it did); a second one calls `onSecond`,
 * which ends the process at once through the entry's exit (safe because every effect is journalled
 * before it starts).
 */
export function trapStopSignals(
  onFirst: (signal: NodeJS.Signals) => void,
  /** Says what was done so far (not lost), then leaves at once with the signal's exit code. */
  onSecond: (signal: NodeJS.Signals) => never,
): StopTrap {
  const controller = new AbortController();
  let first: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (first) onSecond(signal);
    first = signal;
    controller.abort();
    onFirst(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    received: () => first,
    release() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
