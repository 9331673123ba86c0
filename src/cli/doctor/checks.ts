import { KbsyncError, messageOf } from '../../errors.js';
import { terminal } from '../../terminal.js';
import type { ErrorCode } from '../../codes.js';
import { ExitCode, exitCodeOf, exitCodeOfCode } from '../exit-codes.js';

/**
 * One check. A failing one carries the code and exit code `kbsync sync` would end with for the same
 * cause, because each comes from the very check sync makes (or the very error it throws): doctor and
 * sync cannot disagree about what stops a run.
 */
type Check = {
  readonly name: string;
  readonly status: 'pass' | 'warn' | 'fail';
  readonly message: string;
  readonly fix?: string;
  readonly code?: string;
  readonly exitCode?: ExitCode;
};

const MARK = { pass: '✓', warn: '!', fail: '✗' } as const;

export class Checks {
  readonly list: Check[] = [];
  constructor(readonly print: boolean) {}

  add(check: Check): void {
    this.list.push(check);
    if (!this.print) return;
    terminal.out(`${MARK[check.status]} ${check.message}${check.code ? ` [${check.code}]` : ''}`);
    if (check.fix) terminal.out(`    → ${check.fix}`);
  }
  pass = (name: string, message: string): void => this.add({ name, status: 'pass', message });
  warn = (name: string, message: string, fix: string): void => this.add({ name, status: 'warn', message, fix });
  /** A failure from the error sync itself would throw: its message (which says what to do), code and exit code. */
  error = (name: string, error: unknown, subject?: string): void =>
    this.add({ name, status: 'fail', message: `${subject ? `${subject}: ` : ''}${messageOf(error)}`, code: error instanceof KbsyncError ? error.code : 'UNEXPECTED', exitCode: exitCodeOf(error) });
  /** A failure found by doctor's own check: its exit is the code's, as for the error sync would throw. */
  fail = (name: string, message: string, fix: string, code: ErrorCode | undefined, exitCode: ExitCode = exitCodeOfCode(code ?? 'UNEXPECTED')): void =>
    this.add({ name, status: 'fail', message, fix, exitCode, ...(code ? { code } : {}) });

  /** The exit code of the first failure in the order sync meets them (config, folder, ledger, token, service), so both end alike. */
  get exitCode(): ExitCode {
    return this.list.find((check) => check.status === 'fail')?.exitCode ?? ExitCode.ok;
  }
}
