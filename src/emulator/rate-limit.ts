import { performance } from 'node:perf_hooks';

type Bucket = { tokens: number; at: number };

/**
 * One token bucket per endpoint: capacity = limit, refilled at `limit` tokens per second, so a second of
 * quiet fully restores it. A limit of 0 disables limiting. Uses the real monotonic clock, not the skewed one.
 */
export class RateLimiter {
  #limit: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  setLimit(limit: number): void {
    this.#limit = limit;
    this.#buckets.clear();
  }

  /** Takes one token for `key`; false when the bucket is empty (the caller answers 429). */
  take(key: string, now = performance.now()): boolean {
    if (this.#limit <= 0) return true;
    const bucket = this.#buckets.get(key) ?? { tokens: this.#limit, at: now };
    bucket.tokens = Math.min(this.#limit, bucket.tokens + ((now - bucket.at) / 1000) * this.#limit);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
