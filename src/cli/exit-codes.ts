/** Exit codes are part of kbsync's interface (scripts and CI depend on them); the README documents them. */
export const ExitCode = {
  ok: 0,
  /** The run finished but some files did not sync (each one is reported). */
  partial: 1,
  /** Bad usage, config or input: nothing was done. */
  usage: 2,
  /** A safety guard refused to act (mass delete, empty side, ledger locked or corrupt). */
  refused: 3,
  /** The service could not be used (unreachable, unauthorised, missing scope). */
  service: 4,
  /** Interrupted by a signal; the next run resumes. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
