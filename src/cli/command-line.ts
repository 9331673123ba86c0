import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import { printUsageReport } from './commands/sync.js';
import { printError } from './print-error.js';
import type { Entry } from './command.js';
import { ExitCode, exitCodeOf } from './exit-codes.js';
import { invocation, withInvocation, type Invocation } from '../invocation.js';
import { packageVersion } from '../package-root.js';
import { terminal } from '../terminal.js';
import { scrubUsageError, usageHint } from './usage-errors.js';

/** A command ended with `error`: say it once on stderr; its exit code is its code's (the code table's column). */
function reportFailure(error: unknown): ExitCode {
  printError(error);
  return exitCodeOf(error);
}

function buildProgram(entry: Entry): Command {
  const program = new Command('kbsync')
    .description('Keep a folder of Markdown files and a knowledge base in step, in both directions.')
    .version(packageVersion())
    // Read before parsing (it must reach every line, the logger's included); declared here for --help.
    .option('--no-color', 'no colours in any output (the same as NO_COLOR=1)')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => invocation().stdout.write(text),
      writeErr: (text) => invocation().stderr.write(text),
      outputError: (text, write) => write(scrubUsageError(text)),
    })
    .exitOverride();
  for (const command of commands) command.register(program, entry);
  return program;
}

/**
 * Runs one kbsync command line (`argv` as node gives it: the program, the script, then the arguments) with
 * `given`'s environment, folder and streams, and returns its exit code. It never throws: a failure is said
 * once on `given`'s stderr and becomes its code's exit. `exit` is how a command leaves at once (the entry's
 * process.exit).
 */
export function runCommandLine(argv: readonly string[], given: Invocation, exit: (code: number) => never): Promise<number> {
  const entry: Entry = { exit, fail: (error) => exit(reportFailure(error)) };
  return withInvocation(given, async () => {
    // NO_COLOR is the one switch every part reads (pino-pretty included), so the flag becomes it.
    if (argv.includes('--no-color')) given.env['NO_COLOR'] = '1';
    try {
      await buildProgram(entry).parseAsync(argv as string[]);
    } catch (error) {
      if (error instanceof CommanderError) {
        const hint = usageHint(error.message);
        if (hint) terminal.err(hint);
        given.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
        // A script that asked `sync` for JSON reads a report even when the command line itself was wrong.
        if (error.exitCode !== 0) printUsageReport(argv.slice(2), scrubUsageError(error.message));
      } else given.exitCode = reportFailure(error);
    }
    return given.exitCode ?? ExitCode.ok;
  });
}
