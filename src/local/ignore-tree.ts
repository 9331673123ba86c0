import { createRequire } from 'node:module';
import type IgnoreFactory from 'ignore';
import type { Ignore } from 'ignore';

// The ignore package is required on the first .kbsyncignore found: a tree without one never loads it.
const require = createRequire(import.meta.url);
const ignore = (): Ignore => (require('ignore') as typeof IgnoreFactory)();

/**
 * The `.kbsyncignore` files of a tree, in gitignore syntax, one per folder. As in git, a rule in a
 * deeper file wins over one in a shallower file, and an ignored folder is never entered.
 * Paths are relative POSIX paths from the sync root; '' is the root itself.
 */
export class IgnoreTree {
  readonly #matchers = new Map<string, Ignore | null>();
  #active = 0;

  /** Records the ignore file of `dir` (its text, or null when the folder has none). */
  set(dir: string, content: string | null): void {
    this.forget(dir);
    const matcher = content === null || content.trim() === '' ? null : ignore().add(content);
    this.#matchers.set(dir, matcher);
    if (matcher) this.#active += 1;
  }

  /** Drops what is known of `dir`'s ignore file (it changed and must be read again). */
  forget(dir: string): void {
    if (this.#matchers.get(dir)) this.#active -= 1;
    this.#matchers.delete(dir);
  }

  isKnown(dir: string): boolean {
    return this.#matchers.has(dir);
  }

  /** True when the rules of the known ignore files of `rel`'s ancestor folders ignore it. */
  ignores(rel: string, isDir: boolean): boolean {
    if (this.#active === 0) return false;
    let ignored = false;
    let slash = -1;
    // Walk the ancestors from the root down: '', 'a', 'a/b', ...
    for (;;) {
      const dir = slash === -1 ? '' : rel.slice(0, slash);
      const matcher = this.#matchers.get(dir);
      if (matcher) {
        const sub = slash === -1 ? rel : rel.slice(slash + 1);
        const result = matcher.test(isDir ? `${sub}/` : sub);
        if (result.ignored) ignored = true;
        else if (result.unignored) ignored = false;
      }
      slash = rel.indexOf('/', slash + 1);
      if (slash === -1) return ignored;
    }
  }
}
