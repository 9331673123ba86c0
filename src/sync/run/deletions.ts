/**
 * The deletes a new document of this run waits for, by the deleted file's path: a create titled like a document
 * this run deletes (decide/placement.ts, `afterDelete`) goes once that delete is done, so the title is free and
 * no `Title (2)` is left for good. Each settles with whether the document is gone; one that never runs (the run
 * stopped, the action failed or was held) settles as not gone, so a wait always ends.
 */
export class Deletions {
  readonly #pending = new Map<string, { readonly gone: Promise<boolean>; readonly resolve: (gone: boolean) => void }>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) {
      let resolve!: (gone: boolean) => void;
      const gone = new Promise<boolean>((done) => (resolve = done));
      this.#pending.set(path, { gone, resolve });
    }
  }

  /** The delete of `path` is over: `gone`, its document deleted (or found deleted already). The first word stands. */
  settled(path: string, gone: boolean): void {
    this.#pending.get(path)?.resolve(gone);
  }

  /** Whether the document of `path` is gone, once its delete is over (at once false for a delete this run does not make). */
  gone(path: string): Promise<boolean> {
    return this.#pending.get(path)?.gone ?? Promise.resolve(false);
  }
}
