import type { Command } from 'commander';

/** One CLI command: a small module that adds itself to the program. Only main.ts sets the exit code. */
export type CliCommand = {
  readonly name: string;
  register(program: Command): void;
};
