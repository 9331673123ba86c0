import type { ErrorCode } from './codes.js';

/**
 * The one error family of kbsync. Every error has a stable `code` (for scripts and the README's
 * troubleshooting table) and a message that says what was wrong and what to do about it.
 */
export class KbsyncError extends Error {
  readonly code: ErrorCode;
  /** What the user should do next; appended to the message so it is never lost in a log line. */
  readonly hint: string | undefined;
  /**
   * The message as the lines it is printed as: one, or (with `details`) the message, each detail and the
   * hint, each its own line. A printer prints these lines, never the message split at its line breaks: a
   * line break inside a value (a file name) stays inside its line, shown escaped (printable.ts).
   */
  readonly lines: readonly string[];

  constructor(code: ErrorCode, message: string, options: { hint?: string; cause?: unknown; details?: readonly string[] } = {}) {
    const { hint, details = [] } = options;
    const lines = details.length === 0 ? [hint ? `${message} ${hint}` : message] : [message, ...details, ...(hint ? [hint] : [])];
    super(lines.join('\n'), { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = hint;
    this.lines = lines;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** Input we do not control (config, files, arguments) was wrong. */
export class InputError extends KbsyncError {}

/** A safety rule refused to act (mass-delete guard, empty side, lock held by another process). */
export class SafetyError extends KbsyncError {}

/** Narrow an unknown thrown value to a message without ever throwing again. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
