import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KbsyncError, messageOf } from '../errors.js';
import { commands } from './commands/index.js';
import { redact } from '../secrets.js';
import { ExitCode, exitCodeOf } from './exit-codes.js';
import { packageRoot } from '../package-root.js';
import { scrubUsageError, usageHint } from './usage-errors.js';

const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('kbsync')
    .description('Keep a folder of Markdown files and a knowledge base in step, in both directions.')
    .version(version)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(scrubUsageError(text)) })
    .exitOverride();
  for (const command of commands) command.register(program);
  return program;
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      const hint = usageHint(error.message);
      if (hint) console.error(hint);
      process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
      return;
    }
    const code = error instanceof KbsyncError ? ` [${error.code}]` : '';
    // Errors are built redacted; this is the last gate before the terminal, for any that were not (rule 9).
    console.error(redact(`kbsync: ${messageOf(error)}${code}`));
    if (process.env['KBSYNC_DEBUG'] && error instanceof Error && error.stack) console.error(redact(error.stack));
    process.exitCode = exitCodeOf(error);
  }
}

// `kbsync status | head` closes the pipe early: that is the reader's choice, not an error to crash on.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

await main(process.argv);
