import type { Source } from '../../remote-state/store.js';
import type { DocRecord, StateRecord, WriteRecord } from '../../remote-state/records.js';
import { latestMinuteAfter } from './minutes.js';
import { crashPoint } from '../run/crash-points.js';

/** A text a write is about to make a document hold, its hash, and the service's clock (ms) when announced. */
export type Announced = { readonly text: string; readonly hash: string; readonly a: number };

/**
 * What must be in the shared state before the run goes on, appended as soon as it is known:
 * - the creation ids of new documents, right after each create and before the run does anything that depends
 *   on it (the body is sent only once its id is recorded), so a run killed at any point after that loses no id,
 *   ledger or not;
 * - in a push without a ledger (a CI job), what a write is about to make a document hold (its source, and a
 *   WriteRecord), so the run after a kill that threw its ledger away still knows its write for what it was.
 *
 * What arrives close together goes in one append: while other creates are in flight, a recorded id waits for
 * them (at most `windowMs`), and while an append is under way, what arrives meanwhile makes the next one. An
 * initial push of a thousand files costs some forty appends, not a thousand.
 */
export class StateJournal {
  readonly #append: (records: readonly StateRecord[], sources: readonly Source[]) => Promise<unknown>;
  readonly #windowMs: number;
  #pending: { readonly record?: StateRecord; readonly source?: Source; readonly done: (error?: unknown) => void }[] = [];
  /** Announced writes, by document and text: the latest minute a write then can bear (see announce), and the append. */
  readonly #announced = new Map<string, { readonly minute: string; readonly done: Promise<void> }>();
  #creating = 0;
  #flushing = false;
  #timer: NodeJS.Timeout | undefined;
  /** Settles once the create that holds the turn has its id kept (or is over). */
  #turn: Promise<void> = Promise.resolve();
  /** Creates waiting for their turn: with a ledger, their ids join the append of the ids before them. */
  #waiting = 0;
  /** The run keeps its ledger: an id is kept once committed there, and its append may wait for the next. */
  readonly ledgerKeepsIds: boolean;

  constructor(append: (records: readonly StateRecord[], sources: readonly Source[]) => Promise<unknown>, options: { readonly windowMs?: number; readonly ledgerKeepsIds?: boolean } = {}) {
    this.#append = append;
    this.#windowMs = options.windowMs ?? 100;
    this.ledgerKeepsIds = options.ledgerKeepsIds ?? true;
  }

  /**
   * Waits for this create's turn: no create is sent while another's id may still be lost to a kill (from its
   * request to the moment its id is kept: the ledger's commit, or in a run without a ledger, the append that
   * puts it in the state). The service returns that id once, so a kill loses at most one. Call the returned
   * function once the id is kept, or the create is over.
   */
  async createTurn(): Promise<() => void> {
    const before = this.#turn;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.#turn = before.then(() => mine);
    // Without a ledger the turn waits for the append itself, which must then not wait for the creates behind it.
    if (this.ledgerKeepsIds) this.#waiting += 1;
    try {
      await before;
    } finally {
      if (this.ledgerKeepsIds) this.#waiting -= 1;
    }
    return release;
  }

  /** Runs a create, counted as in flight: the ids of creates answering meanwhile wait for it to join their append. */
  async creating<T>(create: () => Promise<T>): Promise<T> {
    this.#creating += 1;
    try {
      return await create();
    } finally {
      this.#creating -= 1;
      if (this.#creating + this.#waiting === 0) this.#soon();
    }
  }

  /**
   * Records a new document's ids (its path, creation nodeId, and the document it replaces); resolves once they
   * are in the shared state, so a machine that still pairs the replaced one follows before anything is deleted.
   */
  identify(doc: Pick<DocRecord, 'p' | 'k' | 'n' | 'o' | 'rp'>, body?: Announced): Promise<void> {
    // No source and no blocks yet ('' for both): a rerun that finds only this adopts the document by its ids.
    const record: DocRecord = { t: 'doc', p: doc.p, k: doc.k, n: doc.n, h: '', rb: '', m: '', o: doc.o, ...(doc.rp !== undefined ? { rp: doc.rp } : {}) };
    const identified = this.#enqueue(record);
    // The first body, announced in the same append (a push without a ledger: see announce).
    return body ? Promise.all([identified, this.announce({ p: doc.p, k: doc.k, a: body.a }, body)]).then(() => undefined) : identified;
  }

  /**
   * Announces a write (see WriteRecord) of `body.text` to the document; resolves once it is in the shared state
   * (the text with it, unless the state keeps it already). The same text announced for the document in the
   * same minute stands for this write too (a write now can bear no later minute), so a run announces each
   * write once, ahead (see announce.ts), and again only when it runs into a later minute.
   */
  announce(write: Omit<WriteRecord, 't' | 'h'>, body: Omit<Announced, 'a'>): Promise<void> {
    const key = `${write.k}\0${body.hash}`;
    const minute = latestMinuteAfter(write.a);
    const standing = this.#announced.get(key);
    if (standing?.minute === minute) return standing.done;
    const done = this.#enqueue({ t: 'write', ...write, h: body.hash }, { hash: body.hash, text: body.text });
    this.#announced.set(key, { minute, done });
    // A failed append stands for nothing: the next write of it tries again.
    done.catch(() => this.#announced.get(key)?.done === done && this.#announced.delete(key));
    return done;
  }

  /** Keeps texts in the shared state's sources ahead of the writes that will announce them (one append, not one per write). */
  keep(texts: readonly Omit<Announced, 'a'>[]): Promise<void> {
    return Promise.all(texts.map((text) => this.#enqueue(undefined, { hash: text.hash, text: text.text }))).then(() => undefined);
  }

  #enqueue(record: StateRecord | undefined, source?: Source): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ ...(record ? { record } : {}), ...(source ? { source } : {}), done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error)))) });
      if (this.#creating + this.#waiting === 0) this.#soon();
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
    this.#append(
      batch.flatMap((item) => (item.record ? [item.record] : [])),
      batch.flatMap((item) => (item.source ? [item.source] : [])),
    )
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
