import type { DocRecord, StateRecord } from '../remote-state/records.js';
import { crashPoint } from './crash-points.js';

/**
 * The creation ids of new documents, written to the shared state right after each create and before the
 * run does anything that depends on it (the body is sent only once its id is recorded), so a run killed at
 * any point after that loses no id, ledger or not. The ids of creates that answer close together go in
 * one append: while other creates are in flight, a recorded id waits for them (at most `windowMs`), and
 * while an append is under way, the ids that arrive meanwhile make the next one. An initial push of a
 * thousand files costs some forty appends, not a thousand.
 */
export class IdJournal {
  readonly #append: (records: readonly StateRecord[]) => Promise<unknown>;
  readonly #windowMs: number;
  #pending: { readonly record: StateRecord; readonly done: (error?: unknown) => void }[] = [];
  #creating = 0;
  #flushing = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(append: (records: readonly StateRecord[]) => Promise<unknown>, windowMs = 100) {
    this.#append = append;
    this.#windowMs = windowMs;
  }

  /** Runs a create, counted as in flight: the ids of creates answering meanwhile wait for it to join their append. */
  async creating<T>(create: () => Promise<T>): Promise<T> {
    this.#creating += 1;
    try {
      return await create();
    } finally {
      this.#creating -= 1;
      if (this.#creating === 0) this.#soon();
    }
  }

  /**
   * Records a new document's ids (its path, creation nodeId, and the document it replaces); resolves once they
   * are in the shared state, so a machine that still pairs the replaced one follows before anything is deleted.
   */
  identify(doc: Pick<DocRecord, 'p' | 'k' | 'n' | 'o' | 'rp'>): Promise<void> {
    // No source and no blocks yet ('' for both): a rerun that finds only this adopts the document by its ids.
    const record: DocRecord = { t: 'doc', p: doc.p, k: doc.k, n: doc.n, h: '', rb: '', m: '', o: doc.o, ...(doc.rp !== undefined ? { rp: doc.rp } : {}) };
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ record, done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error)))) });
      if (this.#creating === 0) this.#soon();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#windowMs);
    });
  }

  #soon(): void {
    if (this.#pending.length > 0) setImmediate(() => this.#flush());
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#flushing || this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = true;
    this.#append(batch.map((item) => item.record))
      .then(
        () => {
          crashPoint('after-id-append');
          for (const item of batch) item.done();
        },
        (error: unknown) => {
          for (const item of batch) item.done(error ?? new Error('the append failed'));
        },
      )
      .finally(() => {
        this.#flushing = false;
        if (this.#pending.length > 0) this.#flush();
      });
  }
}
