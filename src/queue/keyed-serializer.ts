/**
 * Per-document serialisation: two operations on one document never overlap (a push racing a
 * pull would lose text). `coalesce` lets a burst of edits to one document become one push: work
 * that has not started yet is replaced by the newer work, and every caller gets the newer result.
 */
type Waiter = { resolve(value: unknown): void; reject(error: unknown): void };
type Job = { fn: () => Promise<unknown>; readonly waiters: Waiter[]; readonly coalescing: boolean };
type KeyState = { running: boolean; readonly jobs: Job[] };

export class KeyedSerializer<K = string> {
  readonly #keys = new Map<K, KeyState>();
  readonly #idleWaiters: Array<() => void> = [];

  /** Runs `fn` after every earlier operation for `key` has settled. */
  run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    return this.#enqueue(key, fn, false);
  }

  /**
   * Like `run`, but if coalescing work for `key` is still waiting, `fn` replaces it and that
   * caller receives this result too. Work already running is never replaced.
   */
  coalesce<T>(key: K, fn: () => Promise<T>): Promise<T> {
    return this.#enqueue(key, fn, true);
  }

  /** True while work for `key` is running or waiting. */
  isBusy(key: K): boolean {
    return this.#keys.has(key);
  }

  /** Number of keys with work running or waiting. */
  get size(): number {
    return this.#keys.size;
  }

  /** Resolves once no key has work running or waiting. */
  idle(): Promise<void> {
    if (this.#keys.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #enqueue<T>(key: K, fn: () => Promise<T>, coalescing: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { resolve: resolve as (value: unknown) => void, reject };
      let state = this.#keys.get(key);
      if (!state) {
        state = { running: false, jobs: [] };
        this.#keys.set(key, state);
      }
      const last = state.jobs.at(-1);
      // Only the newest waiting job may absorb new work: replacing an older one would reorder it
      // around a plain `run` queued after it.
      if (coalescing && last?.coalescing) {
        last.fn = fn;
        last.waiters.push(waiter);
      } else {
        state.jobs.push({ fn, waiters: [waiter], coalescing });
      }
      this.#pump(key, state);
    });
  }

  #pump(key: K, state: KeyState): void {
    if (state.running) return;
    const job = state.jobs.shift();
    if (!job) {
      this.#keys.delete(key);
      if (this.#keys.size === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
      return;
    }
    state.running = true;
    const settle = (outcome: (waiter: Waiter) => void): void => {
      // Release the key before waking the callers, so that they see it idle (or the next job started).
      state.running = false;
      this.#pump(key, state);
      job.waiters.forEach(outcome);
    };
    void Promise.resolve()
      .then(job.fn)
      .then(
        (value) => settle((waiter) => waiter.resolve(value)),
        (error: unknown) => settle((waiter) => waiter.reject(error)),
      );
  }
}
