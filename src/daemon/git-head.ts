import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The HEAD file of the git repository holding `root` (a checkout rewrites it on every branch switch), or
 * undefined outside one. A `.git` file (a worktree, a submodule) points at the real git folder.
 */
export function findGitHead(root: string): string | undefined {
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    try {
      const stat = statSync(dotGit);
      if (stat.isDirectory()) return path.join(dotGit, 'HEAD');
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
      if (pointer) return path.join(path.resolve(dir, pointer), 'HEAD');
    } catch {
      // no .git here: look in the folder above
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** What HEAD names: the branch (`main`), or the commit a detached HEAD is at (shortened); undefined when unreadable. */
export function readGitHead(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  const branch = /^ref:\s*refs\/heads\/(.+)$/.exec(text)?.[1];
  if (branch) return branch;
  return /^[0-9a-f]{40,64}$/.test(text) ? `${text.slice(0, 12)} (detached)` : undefined;
}

/** The branch a HEAD label names, or undefined for a detached HEAD (a branch name holds no space: git refuses one). */
export const branchOf = (label: string): string | undefined => (label.includes(' ') ? undefined : label);

/** Watches for branch switches by reading HEAD at each cycle: one small read, only in a git repository. */
export class GitBranch {
  readonly #head: string | undefined;
  #last: string | undefined;

  constructor(root: string) {
    this.#head = findGitHead(root);
    this.#last = this.#head ? readGitHead(this.#head) : undefined;
  }

  /** The root is inside a git repository (HEAD was found). */
  get inRepository(): boolean {
    return this.#head !== undefined;
  }

  /** What HEAD named at the last read: a branch, or a detached commit; undefined outside a repository. */
  get current(): string | undefined {
    return this.#last;
  }

  /** The switch since the last call, if HEAD names another branch or commit now. */
  switched(): { readonly from: string; readonly to: string } | undefined {
    if (!this.#head) return undefined;
    const now = readGitHead(this.#head);
    const before = this.#last;
    if (now === undefined || now === before) return undefined;
    this.#last = now;
    return before === undefined ? undefined : { from: before, to: now };
  }
}
