/**
 * The documents one execution of a plan is about to create, by path. A new body that links to another new
 * file waits for that file's document (its URL) before it is sent, so it goes out once, whole: sending it
 * first and again once the target exists costs a re-read, an overwrite and a read-back more per document.
 * Creating needs nothing of any other action, so a body's wait always ends: a target that fails, is held
 * or never starts (the run stopped) counts as born too, and the body goes out with that link as written.
 */
export class Births {
  readonly #all: ReadonlySet<string>;
  /** Paths not born yet: a promise only for those a body waits on (one each for 10,000 creates is megabytes). */
  readonly #unborn: Set<string>;
  readonly #waits = new Map<string, { readonly born: Promise<void>; readonly resolve: () => void }>();

  constructor(paths: Iterable<string>) {
    this.#all = new Set(paths);
    this.#unborn = new Set(this.#all);
  }

  /** The document at `path` exists now (or will not be made by this run). Idempotent. */
  born(path: string): void {
    this.#unborn.delete(path);
    this.#waits.get(path)?.resolve();
    this.#waits.delete(path);
  }

  /**
   * Settles once every one of `paths` this run creates is born (at once when all are, a link to itself
   * included); undefined when none of them is this run's to create, so there is nothing to wait for.
   */
  awaited(paths: Iterable<string>): Promise<void> | undefined {
    const ours = [...paths].filter((path) => this.#all.has(path));
    if (ours.length === 0) return undefined;
    return Promise.all(ours.filter((path) => this.#unborn.has(path)).map((path) => this.#wait(path))).then(() => undefined);
  }

  #wait(path: string): Promise<void> {
    let wait = this.#waits.get(path);
    if (!wait) {
      let resolve!: () => void;
      const born = new Promise<void>((done) => (resolve = done));
      wait = { born, resolve };
      this.#waits.set(path, wait);
    }
    return wait.born;
  }
}
