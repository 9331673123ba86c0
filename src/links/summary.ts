import type { BrokenReason, LinkProblem } from './types.js';

/** One broken link as a line, the same in the terminal, the daemon's log and CI: where, the link as written, why. */
export const linkLine = (problem: LinkProblem): string =>
  `${problem.path}:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}: broken link ${problem.written}: ${problem.message}`;

/** The same link broken the same way (one commented-out line copied into a thousand notes): one entry of a summary. */
export type LinkGroup = {
  /** Where it is first written (by file, then line). */
  readonly first: LinkProblem;
  readonly count: number;
  readonly files: number;
};

/** A long list of broken links, summarised: counts per reason, and a bounded sample, the most frequent links first. */
export type LinkSummary = {
  readonly total: number;
  readonly files: number;
  readonly byReason: readonly (readonly [BrokenReason, number])[];
  readonly sample: readonly LinkGroup[];
  /** The broken links the sample's groups leave out. */
  readonly left: number;
};

const byPlace = (a: LinkProblem, b: LinkProblem): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || (a.column ?? 0) - (b.column ?? 0));

/** `problems` summarised with at most `groups` entries in the sample. */
export function summariseLinks(problems: readonly LinkProblem[], groups: number): LinkSummary {
  const found = new Map<string, { first: LinkProblem; count: number; files: Set<string> }>();
  const reasons = new Map<BrokenReason, number>();
  for (const problem of [...problems].sort(byPlace)) {
    reasons.set(problem.reason, (reasons.get(problem.reason) ?? 0) + 1);
    const key = JSON.stringify([problem.written, problem.reason, problem.message]);
    const group = found.get(key);
    if (group) {
      group.count += 1;
      group.files.add(problem.path);
    } else found.set(key, { first: problem, count: 1, files: new Set([problem.path]) });
  }
  // The most frequent first: one fix there clears the most; ties in the order they are written.
  const sample = [...found.values()].sort((a, b) => b.count - a.count).slice(0, groups);
  return {
    total: problems.length,
    files: new Set(problems.map((problem) => problem.path)).size,
    byReason: [...reasons].sort((a, b) => b[1] - a[1]),
    sample: sample.map(({ first, count, files }) => ({ first, count, files: files.size })),
    left: problems.length - sample.reduce((sum, group) => sum + group.count, 0),
  };
}
