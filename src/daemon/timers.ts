/**
 * Named one-shot timers: setting a name replaces its previous timer, so each kind of wake-up exists at
 * most once. Unreferenced unless asked: the daemon is kept alive by one timer on purpose, not by accident.
 */
export class Timers {
  readonly #timers = new Map<string, NodeJS.Timeout>();

  set(name: string, delayMs: number, fn: () => void, options: { readonly keepAlive?: boolean } = {}): void {
    this.clear(name);
    const timer = setTimeout(
      () => {
        this.#timers.delete(name);
        fn();
      },
      // setTimeout fires at once for delays past 2^31-1 ms (about 24 days).
      Math.min(Math.max(0, delayMs), 2 ** 31 - 1),
    );
    if (!options.keepAlive) timer.unref();
    this.#timers.set(name, timer);
  }

  clear(name: string): void {
    clearTimeout(this.#timers.get(name));
    this.#timers.delete(name);
  }

  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
