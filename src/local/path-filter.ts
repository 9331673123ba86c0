import { createRequire } from 'node:module';
import path from 'node:path';
import type Picomatch from 'picomatch';
import { DEFAULT_STATE_DIR, isAlwaysIgnoredDirName, isConflictCopyName, isTransientFileName } from './names.js';
import { isInside, toPosix } from './paths.js';

export type FilterOptions = {
  /** Globs (picomatch, relative POSIX paths) a file must match to be synced. Default `**\/*.md`. */
  readonly include?: readonly string[];
  /** Globs of files and folders never synced. */
  readonly exclude?: readonly string[];
  /** kbsync's state folder: absolute, or relative to the root. Default `.kbsync`. */
  readonly stateDir?: string;
};

type FileVerdict = 'file' | 'conflict' | 'ignored';

export const DEFAULT_INCLUDE: readonly string[] = ['**/*.md'];

type Matcher = (rel: string) => boolean;

// picomatch is required only for globs the configuration gives: compiling it is about 5 ms of every run.
const require = createRequire(import.meta.url);
const globMatcher = (globs: readonly string[]): Matcher => (require('picomatch') as typeof Picomatch)([...globs]);

/**
 * What picomatch's `**\/*.md` (the default include) matches, without loading it: a name ending in `.md`
 * in a path where no folder or file name starts with a dot. A property test holds it to picomatch.
 */
export function matchesDefaultInclude(rel: string): boolean {
  return rel.endsWith('.md') && !rel.startsWith('.') && !rel.includes('/.');
}

/**
 * The configuration-level part of the ignore rules (always-ignored names, state folder, include
 * and exclude globs). `.kbsyncignore` files are the IgnoreTree's part. Paths are relative POSIX
 * paths from the root, NFC-normalised, so a pattern typed on one system matches on another.
 */
export class PathFilter {
  readonly #include: Matcher;
  readonly #exclude: Matcher | null;
  readonly #excludeGlobs: readonly string[];
  readonly #stateDir: string | null;

  constructor(root: string, options: FilterOptions = {}) {
    const include = options.include && options.include.length > 0 ? options.include : DEFAULT_INCLUDE;
    this.#include = include.length === 1 && include[0] === DEFAULT_INCLUDE[0] ? matchesDefaultInclude : globMatcher(include);
    this.#exclude = options.exclude && options.exclude.length > 0 ? globMatcher(options.exclude) : null;
    this.#excludeGlobs = options.exclude ?? [];
    this.#stateDir = stateDirInside(root, options.stateDir ?? DEFAULT_STATE_DIR);
  }

  /** The state folder as a relative POSIX path when it lies inside the root, else null. */
  get stateDir(): string | null {
    return this.#stateDir;
  }

  dirIgnored(rel: string): boolean {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (isAlwaysIgnoredDirName(name)) return true;
    if (this.#stateDir !== null && rel === this.#stateDir) return true;
    return this.#exclude !== null && this.#exclude(rel);
  }

  /** The file matches an `exclude` glob (whatever `include` says): kbsync never reads it for the user. */
  fileExcluded(rel: string): boolean {
    return this.#exclude !== null && this.#exclude(rel);
  }

  /** The `exclude` glob that matches `rel` (a file or a folder), to name it in a report; undefined when none does. */
  excludedBy(rel: string): string | undefined {
    if (this.#exclude === null || !this.#exclude(rel)) return undefined;
    return this.#excludeGlobs.find((glob) => globMatcher([glob])(rel));
  }

  fileVerdict(rel: string): FileVerdict {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (isTransientFileName(name)) return 'ignored';
    if (this.#exclude !== null && this.#exclude(rel)) return 'ignored';
    if (!this.#include(rel)) return 'ignored';
    return isConflictCopyName(name) ? 'conflict' : 'file';
  }
}

/** The state folder as a relative POSIX path when it lies inside the root, else null. */
function stateDirInside(root: string, stateDir: string): string | null {
  const base = path.resolve(root);
  const target = path.resolve(base, stateDir);
  if (target === base || !isInside(base, target)) return null;
  return toPosix(path.relative(base, target)).normalize('NFC');
}
