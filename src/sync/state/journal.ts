import type { Source } from '../../remote-state/store.js';
import type { DocRecord, StateRecord, WriteRecord } from '../../remote-state/records.js';
import { latestMinuteAfter } from './minutes.js';
import { crashPoint } from '../run/crash-points.js';

/** A text a write is about to make a document hold, its hash, and the service's clock (ms) when announced. */
export type Announced = { readonly text: string; readonly hash: string; readonly a: number };

/**
 * How many creates a push without a ledger (a CI job: its ledger goes with its checkout) may have between their
 * request and the append that keeps their ids: what a kill can lose at most. The service gives a document's
 * deletion id (its creation `nodeId`) once, in the create's answer; a run killed before that id is in the shared
 * state cannot delete the document, ever. Lost, it costs no duplicate: the next run pairs the document with its
 * file by its title (plan.ts `placeUnrecorded`, an empty document adopted and filled, act/adopt.ts) and says
 * once, with its URL, that a person must delete it should the file go (create.ts `idLost`). One create at a time
 * in that window (the rule before) cost an append per create, a third of a first push's calls; sixteen in one
 * append cost one a sixteenth as much, and a kill loses at most sixteen of those ids, only ever of documents made
 * in the last moment before it. A graceful stop (Ctrl+C, SIGTERM, a cancelled job) loses none: the creates under
 * way answer, and their ids are appended, before the run ends.
 */
export const ID_WINDOW = 16;

/** One create's turn (see StateJournal.createTurn). */
export type CreateTurn = {
  /** Sends the create's request: the ids of the creates answered meanwhile wait for it, to join one append. */
  creating<T>(create: () => Promise<T>): Promise<T>;
  /** Its id is committed to the ledger: where the ledger keeps ids, the next create may go. */
  kept(): void;
  /** The create is over: its id in the shared state, or none to keep. Idempotent. */
  over(): void;
};

/**
 * What must be in the shared state before the run goes on, appended as soon as it is known:
 * - the creation ids of new documents, right after each create and before the run does anything that depends
 *   on it (the body is sent only once its id is recorded), so a run killed after that loses no id, ledger or not;
 * - in a push without a ledger (a CI job), what a write is about to make a document hold (its source, and a
 *   WriteRecord), so the run after a kill that threw its ledger away still knows its write for what it was.
 *
 * What arrives close together goes in one append: while other creates are on their way, a recorded id waits for
 * them (with a ledger, at most `windowMs`; without one, for their answers: the window is ID_WINDOW creates), and
 * while an append is under way, what arrives meanwhile makes the next one. An initial push of a thousand files
 * costs some forty appends with a ledger, some sixty-five without, not a thousand.
 */
export class StateJournal {
  readonly #append: (records: readonly StateRecord[], sources: readonly Source[]) => Promise<unknown>;
  readonly #windowMs: number;
  #pending: { readonly record?: StateRecord; readonly source?: Source; readonly done: (error?: unknown) => void }[] = [];
  /** Announced writes, by document and text: the latest minute a write then can bear (see announce), and the append. */
  readonly #announced = new Map<string, { readonly minute: string; readonly done: Promise<void> }>();
  /** The latest minute announced for, and the one before it: only those announcements can stand for a write now. */
  #minutes: readonly string[] = [];
  #flushing = false;
  #timer: NodeJS.Timeout | undefined;
  /** Creates whose id may be lost to a kill at once (see createTurn): one with a ledger, ID_WINDOW without. */
  readonly #window: number;
  /** Turns held now, and the creates waiting for one (each handed the turn that ends, in order). */
  #held = 0;
  readonly #waiting: (() => void)[] = [];
  /** Turns whose create has not answered yet: its id may join the append the answered ones wait for. */
  #unanswered = 0;
  /** The run keeps its ledger: an id is kept once committed there, and its append may wait for the next. */
  readonly ledgerKeepsIds: boolean;

  constructor(append: (records: readonly StateRecord[], sources: readonly Source[]) => Promise<unknown>, options: { readonly windowMs?: number; readonly ledgerKeepsIds?: boolean } = {}) {
    this.#append = append;
    this.#windowMs = options.windowMs ?? 100;
    this.ledgerKeepsIds = options.ledgerKeepsIds ?? true;
    this.#window = this.ledgerKeepsIds ? 1 : ID_WINDOW;
  }

  /**
   * Waits for this create's turn: no more creates are sent than the window allows while their ids may still be
   * lost to a kill (from the request to the moment the id is kept: the ledger's commit, or in a run without a
   * ledger, the append that puts it in the state). With a ledger that is one create: its intent finds the
   * document again, but not the id. Without one, ID_WINDOW: their ids go in one append.
   */
  async createTurn(): Promise<CreateTurn> {
    if (this.#held < this.#window) {
      this.#held += 1;
      this.#unanswered += 1;
    } else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let answered = false;
    let released = false;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      this.#unanswered -= 1;
      this.#schedule();
    };
    const release = (): void => {
      if (released) return;
      released = true;
      this.#handOver();
    };
    return {
      creating: async (create) => {
        // Sent again (its answer lost, the document not found): on its way once more.
        if (answered) {
          answered = false;
          this.#unanswered += 1;
        }
        try {
          return await create();
        } finally {
          answer();
        }
      },
      kept: () => {
        if (this.ledgerKeepsIds) release();
      },
      over: () => {
        answer();
        release();
      },
    };
  }

  /** An ended turn goes to the first create waiting, counted as on its way at once (its id will join the append). */
  #handOver(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held -= 1;
    else {
      this.#unanswered += 1;
      next();
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
   * Records a document as this run's ledger has it, saying the one it replaced (`rp`): a move whose run was killed
   * between recording the new document and appending its ids (identify) left the state without it, and its next
   * run appends it before it deletes the old document (act/removals.ts retire). Resolves once it is in the state.
   */
  replaced(record: DocRecord & { readonly rp: string }): Promise<void> {
    return this.#enqueue(record);
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
    this.#forgetPastMinutes(minute);
    const done = this.#enqueue({ t: 'write', ...write, h: body.hash }, { hash: body.hash, text: body.text });
    this.#announced.set(key, { minute: this.#minutes.find((known) => known === minute) ?? minute, done });
    // A failed append stands for nothing: the next write of it tries again.
    done.catch(() => this.#announced.get(key)?.done === done && this.#announced.delete(key));
    return done;
  }

  /**
   * A write bears the minute its run's clock is in, so an announcement of an earlier minute than the last two
   * seen (one back, for a Date header that lagged) stands for no write any more: dropped when a new minute
   * comes, so a long run keeps two minutes of them, not one per document it wrote (0.24 KB each).
   */
  #forgetPastMinutes(minute: string): void {
    const [latest] = this.#minutes;
    if (latest !== undefined && minute <= latest) return;
    this.#minutes = latest === undefined ? [minute] : [minute, latest];
    for (const [key, standing] of this.#announced) if (!this.#minutes.includes(standing.minute)) this.#announced.delete(key);
  }

  /** Keeps texts in the shared state's sources ahead of the writes that will announce them (one append, not one per write). */
  keep(texts: readonly Omit<Announced, 'a'>[]): Promise<void> {
    return Promise.all(texts.map((text) => this.#enqueue(undefined, { hash: text.hash, text: text.text }))).then(() => undefined);
  }

  #enqueue(record: StateRecord | undefined, source?: Source): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ ...(record ? { record } : {}), ...(source ? { source } : {}), done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error)))) });
      this.#schedule();
    });
  }

  /**
   * Appends what is pending once no create that may add an id is on its way: one not answered yet, and with a
   * ledger one waiting for its turn (it comes within a commit); without one, those wait for this append. With a
   * ledger the wait is at most `windowMs`; without one, until they answer (a create always does, or fails), so
   * the ids of a window go in one append, whatever the pace.
   */
  #schedule(): void {
    if (this.#pending.length === 0) return;
    if (this.#unanswered + (this.ledgerKeepsIds ? this.#waiting.length : 0) === 0) setImmediate(() => this.#flush());
    else if (this.ledgerKeepsIds) this.#timer ??= setTimeout(() => this.#flush(), this.#windowMs);
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
        // What arrived meanwhile: with a ledger, the next append now; without, once its window has answered too.
        if (this.ledgerKeepsIds) this.#flush();
        else this.#schedule();
      });
  }
}
