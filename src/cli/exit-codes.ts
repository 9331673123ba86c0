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
  /** Interrupted by SIGINT (Ctrl+C); the next run resumes. 128 + the signal's number, as shells report it. */
  interrupted: 130,
  /** Stopped by SIGTERM (a service manager, CI cancelling a job); the next run resumes. */
  terminated: 143,
} as const;

/** The exit code for a run stopped by `signal`. */
export const exitCodeForSignal = (signal: NodeJS.Signals): ExitCode => (signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted);
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
