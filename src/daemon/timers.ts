import { systemClock, type DaemonClock } from './clock.js';

/**
 * Named one-shot timers: setting a name replaces its previous timer, so each kind of wake-up exists at
 * most once. Unreferenced unless asked: the daemon is kept alive by one timer on purpose, not by accident.
 */
export class Timers {
  readonly #clock: DaemonClock;
  readonly #cancels = new Map<string, () => void>();

  constructor(clock: DaemonClock = systemClock) {
    this.#clock = clock;
  }

  set(name: string, delayMs: number, fn: () => void, options: { readonly keepAlive?: boolean } = {}): void {
    this.clear(name);
    const cancel = this.#clock.after(
      delayMs,
      () => {
        this.#cancels.delete(name);
        fn();
      },
      options.keepAlive === true,
    );
    this.#cancels.set(name, cancel);
  }

  clear(name: string): void {
    this.#cancels.get(name)?.();
    this.#cancels.delete(name);
  }

  clearAll(): void {
    for (const cancel of this.#cancels.values()) cancel();
    this.#cancels.clear();
  }
}
