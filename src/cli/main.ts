import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import { printUsageReport } from './commands/sync.js';
import { printError } from './print-error.js';
import type { Entry } from './command.js';
import { ExitCode, exitCodeOf } from './exit-codes.js';
import { packageVersion } from '../package-root.js';
import { terminal } from '../terminal.js';
import { scrubUsageError, usageHint } from './usage-errors.js';

/** The one place kbsync ends its process at once; everything else sets `process.exitCode` and returns, or throws. */
function exit(code: number): never {
  process.exit(code);
}

/** A command ended with `error`: say it once on stderr; its exit code is its code's (the code table's column). */
function reportFailure(error: unknown): ExitCode {
  printError(error);
  return exitCodeOf(error);
}

const entry: Entry = { exit, fail: (error) => exit(reportFailure(error)) };

export function buildProgram(): Command {
  const program = new Command('kbsync')
    .description('Keep a folder of Markdown files and a knowledge base in step, in both directions.')
    .version(packageVersion())
    // Read in main() before parsing (it must reach every line, the logger's included); declared here for --help.
    .option('--no-color', 'no colours in any output (the same as NO_COLOR=1)')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(scrubUsageError(text)) })
    .exitOverride();
  for (const command of commands) command.register(program, entry);
  return program;
}

async function main(argv: readonly string[]): Promise<void> {
  // NO_COLOR is the one switch every part reads (pino-pretty included), so the flag becomes it.
  if (argv.includes('--no-color')) process.env['NO_COLOR'] = '1';
  try {
    await buildProgram().parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      const hint = usageHint(error.message);
      if (hint) terminal.err(hint);
      process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
      // A script that asked `sync` for JSON reads a report even when the command line itself was wrong.
      if (error.exitCode !== 0) printUsageReport(argv.slice(2), scrubUsageError(error.message));
      return;
    }
    process.exitCode = reportFailure(error);
  }
}

// `kbsync status | head` closes the pipe early: that is the reader's choice, not an error to crash on.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit(Number(process.exitCode ?? 0));
    throw error;
  });
}

// The bundle is a script (no top-level await); main() settles every error itself.
void main(process.argv);
