/**
 * The emulator's clock: the real clock shifted by an offset, so tests can simulate skew or the passing of
 * minutes; or frozen at one instant (plus the offset), so a randomized test's minutes are decided by its seed
 * and not by where the wall clock's minute boundaries happen to fall.
 */
export class Clock {
  #offsetMs: number;
  #frozenAtMs: number | undefined;

  constructor(offsetMs = 0, frozenAtMs?: number) {
    this.#offsetMs = offsetMs;
    this.#frozenAtMs = frozenAtMs;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  setOffset(offsetMs: number): void {
    this.#offsetMs = offsetMs;
  }

  /** Stops the clock at `atMs` (undefined: runs with the real clock again). */
  freeze(atMs: number | undefined): void {
    this.#frozenAtMs = atMs;
  }

  now(): number {
    return (this.#frozenAtMs ?? Date.now()) + this.#offsetMs;
  }
}

/** The contract's timestamp form: ISO 8601 UTC with minute precision, `YYYY-MM-DDTHH:MMZ`. */
export function minuteStamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16)}Z`;
}
