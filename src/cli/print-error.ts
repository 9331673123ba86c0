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
  // Its own lines (a list under the message), never the message split at a line break a value holds.
  const lines = error instanceof KbsyncError ? error.lines : [messageOf(error)];
  terminal.err(...lines.map((line, i) => redact(`${i === 0 ? 'kbsync: ' : ''}${line}${i === lines.length - 1 ? code : ''}`)));
  printStack(error);
}

/**
 * With `KBSYNC_DEBUG=1`, the stack trace's frames, for a bug report (also when the message itself was already
 * said). The trace begins with the message, which was said on its own lines: split at its line breaks, a
 * value in it could start a line.
 */
export function printStack(error: unknown): void {
  if (!invocation().env['KBSYNC_DEBUG'] || !(error instanceof Error) || !error.stack) return;
  const header = `${error.name}: ${error.message}`;
  const frames = error.stack.startsWith(header) ? error.stack.slice(header.length) : error.stack;
  terminal.err(...redact(frames).split('\n').filter((line) => line.trim() !== ''));
}
