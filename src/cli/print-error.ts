import { KbsyncError, messageOf } from '../errors.js';
import { redact } from '../secrets.js';
import { terminal } from '../terminal.js';
import { invocation } from '../invocation.js';

/**
 * An error that ended a command, said once on stderr: the message (what is wrong and what to do) and
 * its code. Errors are built redacted; this is the last gate before the terminal, for any that were
 * not (rule 9). `KBSYNC_DEBUG=1` adds the stack for a bug report.
 */
export function printError(error: unknown): void {
  const code = error instanceof KbsyncError ? ` [${error.code}]` : '';
  terminal.err(redact(`kbsync: ${messageOf(error)}${code}`));
  printStack(error);
}

/** With `KBSYNC_DEBUG=1`, the stack trace, for a bug report (also when the message itself was already said). */
export function printStack(error: unknown): void {
  if (invocation().env['KBSYNC_DEBUG'] && error instanceof Error && error.stack) terminal.err(redact(error.stack));
}
