import { HOT_WINDOW_MS } from './polling-policy.js';

/** At most this many hot documents are remembered (the most recent win), so memory stays flat. */
const MAX_HOT = 200;

type Hot = { changedAt: number; seen: string | undefined };

/**
 * Documents changed on either side recently, by local path, with the modifiedTime the last probe saw.
 * A probe compares against that: the first probe after a change (or a sweep) only takes the baseline,
 * because modifiedTime has minute precision and our own write leaves no usable one.
 */
export class HotDocuments {
  readonly #docs = new Map<string, Hot>();
  readonly #windowMs: number;

  constructor(windowMs = HOT_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  touch(path: string, now: number): void {
    this.#docs.delete(path); // re-insert: the Map's order is recency
    this.#docs.set(path, { changedAt: now, seen: undefined });
    if (this.#docs.size > MAX_HOT) {
      const oldest = this.#docs.keys().next();
      if (!oldest.done) this.#docs.delete(oldest.value);
    }
  }

  forget(path: string): void {
    this.#docs.delete(path);
  }

  /** Paths still hot at `now`; cooled ones are dropped. */
  paths(now: number): string[] {
    for (const [path, hot] of this.#docs) if (now - hot.changedAt > this.#windowMs) this.#docs.delete(path);
    return [...this.#docs.keys()];
  }

  /**
   * Records what a probe saw; true when it differs from the previous probe's baseline (a remote change).
   */
  observe(path: string, modifiedTime: string): boolean {
    const hot = this.#docs.get(path);
    if (!hot) return false;
    const changed = hot.seen !== undefined && hot.seen !== modifiedTime;
    hot.seen = modifiedTime;
    return changed;
  }

  /** A sweep has just reconciled everything: the next probes take fresh baselines. */
  resetBaselines(): void {
    for (const hot of this.#docs.values()) hot.seen = undefined;
  }

  get size(): number {
    return this.#docs.size;
  }
}
