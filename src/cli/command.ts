import type { Command } from 'commander';

/**
 * What the entry hands every command: the one way to end the process at once. Only the entry (main.ts)
 * calls process.exit; a command leaves through this when it must not wait for the event loop to drain.
 */
export type Entry = {
  /** Ends the process now with `code`. */
  exit(code: number): never;
  /** Ends the process now with `error`: said once on stderr, with its code's exit (the code table's). */
  fail(error: unknown): never;
};

/**
 * One CLI command: a small module that adds itself to the program. Commands set their invocation's
 * `exitCode` (src/invocation.ts) and return, or throw: command-line.ts says a thrown error and returns its
 * code's exit from the code table, which the entry exits with.
 * Two leave at once through `entry`, each on purpose: a second Ctrl+C or SIGTERM during `sync` (leave
 * now, the journal makes that safe), and `watch` when its daemon ends, however it ends (a request
 * still in flight past the shutdown deadline must not keep the process alive). The process also ends
 * at once when stdout or stderr is closed under it (EPIPE: `kbsync status | head`), in main.ts.
 */
export type CliCommand = {
  readonly name: string;
  register(program: Command, entry: Entry): void;
};
