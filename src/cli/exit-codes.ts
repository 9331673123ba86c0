import { ERROR_EXITS, isErrorCode, type ErrorCode } from '../codes.js';
import { KbsyncError } from '../errors.js';

/**
 * Exit codes are part of kbsync's interface (scripts and CI depend on them). This table is the one
 * source: the CLI's code, `--help` and the README's table (`npm run gen:docs`) all come from it.
 */
export const EXIT_CODES = [
  { name: 'ok', code: 0, means: 'Done: everything synced (or the command succeeded).' },
  { name: 'partial', code: 1, means: 'The run finished but some files did not sync; each is reported (a file that could not be read or named, a document held back, an open conflict waiting for `kbsync resolve`, a failed call). Run again after fixing them. A file refused for what it holds (too large, not UTF-8, front matter kbsync cannot read) fails the run that first meets it; while its bytes stay the same, later runs of this machine list it as still not synced and do not fail for it.' },
  { name: 'usage', code: 2, means: 'Bad usage, configuration or input, or a local problem (a missing or too broad root, a state folder or ledger that cannot be written): nothing was done.' },
  { name: 'refused', code: 3, means: 'A safety guard refused to act: mass delete, an empty side, the ledger locked or damaged, the workspace changed, this month\'s call budget spent. Nothing was done.' },
  { name: 'service', code: 4, means: 'The service could not be used: unreachable, token rejected, a scope missing, a wrong API path.' },
  { name: 'brokenLinks', code: 5, means: '`sync --check-links` found a link that cannot work in the knowledge base (`LINK_BROKEN`); nothing was sent.' },
  { name: 'interrupted', code: 130, means: 'Stopped by Ctrl+C (SIGINT): the work under way was finished (what was still pending 3 s later was cut) and reported; the next run does the rest.' },
  { name: 'terminated', code: 143, means: 'Stopped by SIGTERM (a service manager, a cancelled CI job): the same as 130.' },
] as const;

type Entry = (typeof EXIT_CODES)[number];
export const ExitCode = Object.fromEntries(EXIT_CODES.map((entry) => [entry.name, entry.code])) as { readonly [E in Entry as E['name']]: E['code'] };
export type ExitCode = Entry['code'];

/** The exit codes table for a command's --help: from the same list as the README's, so the two cannot differ. */
export function exitCodesHelp(): string {
  const wrap = (text: string): string[] => text.match(/.{1,88}(\s|$)/g)?.map((part) => part.trimEnd()) ?? [text];
  return ['Exit codes:', ...EXIT_CODES.flatMap((entry) => wrap(entry.means).map((part, i) => `  ${i === 0 ? String(entry.code).padEnd(5) : '     '}${part}`))].join('\n');
}

/** The exit code for a run stopped by `signal`. */
export const exitCodeForSignal = (signal: NodeJS.Signals): ExitCode => (signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted);

/** The exit of a command that ends with an error of `code`: the code table's column, whatever class threw it. */
export const exitCodeOfCode = (code: ErrorCode): ExitCode => ExitCode[ERROR_EXITS[code]];

/** The exit code of a command that ended with `error`; an error kbsync has no code for is `UNEXPECTED`'s. */
export const exitCodeOf = (error: unknown): ExitCode => exitCodeOfCode(error instanceof KbsyncError && isErrorCode(error.code) ? error.code : 'UNEXPECTED');
