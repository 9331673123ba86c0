import { isDeepStrictEqual } from 'node:util';
import type { ErrorCode } from '../../codes.js';
import type { Ledger } from '../../ledger/index.js';
import type { LocalFile } from '../../local/index.js';
import type { LocalProblem } from './observe-local.js';

/*
 * A file refused for what it holds (over the service's 50,000 characters, not UTF-8, front matter that cannot
 * be read) stays refused until its bytes change: a run cannot do anything about it, and a person told once
 * knows. So it fails the run that first meets it (exit 1, said with what to do), and while it stays as it was
 * every later run lists it as still refused without failing again (README "Exit codes": 1 means something did
 * not sync that a person has not been told of). Splitting a note over several documents would break the one
 * file, one document pairing every promise rests on (moves, the shared state, a pull into one file).
 */

/** The refusals said, by path: the code and the file's size, time and inode when it was said. */
const SAID_KEY = 'refusalsSaid';

/** Refusals for the file's own bytes; an unreadable file or folder may read next time, and fails every run. */
const FOR_WHAT_IT_HOLDS: ReadonlySet<ErrorCode> = new Set(['FILE_TOO_LARGE', 'FILE_NOT_UTF8', 'FILE_HAS_NUL', 'FRONT_MATTER_YAML', 'FRONT_MATTER_INVALID', 'FRONT_MATTER_LANGUAGE']);

type Said = Readonly<Record<string, string>>;

const stamp = (problem: LocalProblem, file: LocalFile): string => `${problem.code} ${file.size} ${file.mtimeMs} ${file.ino}`;

/** What this machine's earlier runs said (read before this run records its own). */
export function refusalsSaid(ledger: Ledger): Said {
  const value = ledger.meta.get(SAID_KEY);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Said) : {};
}

/** The problems, those an earlier run said of these very bytes marked `repeated`. */
export function withRepeats(problems: readonly LocalProblem[], files: readonly LocalFile[], said: Said): LocalProblem[] {
  if (problems.length === 0) return [];
  const byPath = filesByPath(files);
  return problems.map((problem) => {
    const file = byPath.get(problem.path);
    return file && FOR_WHAT_IT_HOLDS.has(problem.code) && said[problem.path] === stamp(problem, file) ? { ...problem, repeated: true as const } : problem;
  });
}

/** Remembers the refusals this run said (only when they changed: a write of the ledger's meta unsettles the folder). */
export function rememberRefusals(ledger: Ledger, problems: readonly LocalProblem[], files: readonly LocalFile[]): void {
  const byPath = problems.length === 0 ? undefined : filesByPath(files);
  const said: Record<string, string> = {};
  for (const problem of problems) {
    const file = byPath?.get(problem.path);
    if (file && FOR_WHAT_IT_HOLDS.has(problem.code)) said[problem.path] = stamp(problem, file);
  }
  if (isDeepStrictEqual(said, refusalsSaid(ledger))) return;
  if (Object.keys(said).length === 0) ledger.meta.delete(SAID_KEY);
  else ledger.meta.set(SAID_KEY, said);
}

/** The scan's files by path: made only when there are problems to look up (a save's cycle has none, and 10,000 files). */
const filesByPath = (files: readonly LocalFile[]): Map<string, LocalFile> => new Map(files.map((file) => [file.path, file]));
