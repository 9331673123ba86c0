import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Opaque ids derived from (seed, counter): reproducible for a given seed, and never repeated after a
 * restart of a file-backed emulator because the counter lives in the state file.
 */
export class IdGenerator {
  readonly #seed: string;
  readonly #nextCounter: () => number;

  constructor(seed: string, nextCounter: () => number) {
    this.#seed = seed;
    this.#nextCounter = nextCounter;
  }

  /** `length` characters (at most 64) of base62, after an optional visible prefix. */
  id(length: number, prefix = ''): string {
    const n = this.#nextCounter();
    const digest = createHash('sha512').update(`${this.#seed}:${n}`).digest();
    let out = prefix;
    for (let i = 0; i < length; i++) out += ALPHABET[(digest[i] ?? 0) % ALPHABET.length];
    return out;
  }
}

/** A small seeded PRNG (mulberry32) for fault decisions: same seed, same sequence of requests, same faults. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randomSeed = (): number => randomInt(1, 2 ** 31 - 1);
