/**
 * Values by text, the oldest dropped past a budget of characters (a text over a quarter of it is not kept): the
 * recent parse trees and the facts made of them (src/markdown/parse.ts), the emulator's recent trees
 * (src/emulator/markdown/parse.ts). `overhead`: characters charged for each value besides its text, for values
 * whose size is not their text's.
 */
export class TextKeyed<T> {
  readonly #values = new Map<string, T>();
  #chars = 0;
  constructor(
    readonly budget: number,
    readonly overhead = 0,
  ) {}

  get(text: string): T | undefined {
    return this.#values.get(text);
  }

  set(text: string, value: T): void {
    if (text.length > this.budget / 4 || this.#values.has(text)) return;
    this.#values.set(text, value);
    this.#chars += text.length + this.overhead;
    // Oldest first (a Map iterates in insertion order).
    for (const old of this.#values.keys()) {
      if (this.#chars <= this.budget) break;
      this.#values.delete(old);
      this.#chars -= old.length + this.overhead;
    }
  }

  clear(): void {
    this.#values.clear();
    this.#chars = 0;
  }
}
