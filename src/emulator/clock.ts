/** The emulator's clock: the real clock shifted by an offset, so tests can simulate skew or the passing of minutes. */
export class Clock {
  #offsetMs: number;

  constructor(offsetMs = 0) {
    this.#offsetMs = offsetMs;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  setOffset(offsetMs: number): void {
    this.#offsetMs = offsetMs;
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }
}

/** The contract's timestamp form: ISO 8601 UTC with minute precision, `YYYY-MM-DDTHH:MMZ`. */
export function minuteStamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16)}Z`;
}
