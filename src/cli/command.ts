import type { Command } from 'commander';

/**
 * One CLI command: a small module that adds itself to the program. Commands set `process.exitCode` and
 * return; errors thrown reach main.ts, which maps them to exit codes. Only two paths call process.exit,
 * each on purpose: a second Ctrl+C or SIGTERM (leave now, the journal makes that safe), and `watch`
 * after its graceful stop (a request still in flight past the deadline must not keep the process alive).
 */
export type CliCommand = {
  readonly name: string;
  register(program: Command): void;
};
