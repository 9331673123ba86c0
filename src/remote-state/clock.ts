import { randomBytes } from 'node:crypto';

/**
 * What orders the records of many writers: a hybrid logical clock (milliseconds of the wall clock, pushed
 * past every clock this writer has seen) and the writer's id. A record written after another was read
 * always sorts after it, whatever machine wrote which; records written without seeing each other sort by
 * their wall clocks, then by writer id. So the fold does not depend on where a record sits: an append to
 * an older document, a compaction's copy or a retry lands in the same place in the order.
 */
export class WriterClock {
  #writer: string | undefined;
  #last: number;
  readonly #now: () => number;
  readonly #store: ClockStore | undefined;

  constructor(options: { readonly store?: ClockStore; readonly now?: () => number } = {}) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    const saved = this.#store?.read();
    this.#writer = saved?.writer;
    this.#last = saved?.clock ?? 0;
  }

  /** This writer's id: made (and kept) when it first writes. */
  get writer(): string {
    this.#writer ??= newWriterId();
    return this.#writer;
  }

  /** A clock another writer wrote with: ours moves past it. One far in the future (a clock set wrong, or forged) is not followed. */
  observe(clock: number): void {
    if (clock > this.#last && clock <= this.#now() + MAX_AHEAD_MS) this.#last = clock;
  }

  /** The clock of a decision taken now, later than every record this writer has seen (kept with it, not written). */
  now(): number {
    return Math.max(this.#now(), this.#last + 1);
  }

  /** The clock of the next batch this writer writes: later than anything it wrote or saw. */
  next(): number {
    this.#last = Math.max(this.#now(), this.#last + 1);
    this.#store?.write({ writer: this.writer, clock: this.#last });
    return this.#last;
  }
}

/** Where a writer keeps its id and its clock between runs (the ledger's meta). */
export type ClockStore = { read(): { readonly writer: string; readonly clock: number } | undefined; write(value: { readonly writer: string; readonly clock: number }): void };

/** Clocks more than a day ahead of this machine's are not followed. */
const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

/** 12 random base32 letters: unique among any team's writers. */
const newWriterId = (): string =>
  [...randomBytes(12)].map((byte) => 'abcdefghijklmnopqrstuvwxyz234567'[byte % 32]).join('');
