import type { Random } from '../chaos/random.js';
import type { GateHooks, Passing } from '../helpers/gate-proxy.js';

/** One call that went on, and whose it was: the interleaving, call by call. */
export type Turn = { readonly name: string; readonly method: string; readonly path: string };

/**
 * What else happens while the runs go on (model races): before a call goes on, with `chance` (drawn from `rng`,
 * a stream of its own so a seed's turns stay as they were), `act` happens first, with every run waiting: a
 * colleague's save, a minute passing, a person's edit of a file. `answered` hears of every call once answered
 * (a run stopped after its first body write, say).
 */
export type Meanwhile = {
  readonly rng: Random;
  readonly chance: number;
  readonly act: () => Promise<void>;
  readonly answered?: (name: string, request: Passing) => void;
};

/**
 * A run stopped at one of its calls (model holds, issue 44): the first call of `name`'s run that `at` picks (asked
 * of each of its calls in turn until one is) waits
 * while the other runs go on, and goes on once every other run has finished or waits at a hold of its own (the
 * one held first then goes first). With `then` it waits until every other run has finished, and `then` happens
 * (other machines' whole runs, say) before it goes on: so one machine's record can come after another's later
 * write, and a listing between another's create and its first body, as soaks met them by timing alone.
 */
export type Hold = {
  readonly name: string;
  readonly at: (request: Passing) => boolean;
  readonly then?: () => Promise<void>;
};

/**
 * Two (or more) machines' runs at once, their calls to the service taken in an order the seed chooses: each
 * machine talks through a proxy of its own (gate-proxy.ts), and a call goes on only when every machine still
 * running is waiting on one (none is busy deciding), one call at a time, the next machine drawn from `rng`.
 * So the runs interleave for real, call by call, and the same seed interleaves them the same way whatever
 * the event loop's timing; so does whatever `meanwhile` does between two calls.
 */
export class Interleaver {
  readonly #rng: Random;
  readonly #names: readonly string[];
  readonly #meanwhile: Meanwhile | undefined;
  readonly #holds: readonly Hold[];
  /** The holds met so far (each is met once), and the runs now waiting at one, in the order they came to it. */
  readonly #met = new Set<Hold>();
  readonly #held: { readonly name: string; readonly hold: Hold }[] = [];
  readonly #waiting = new Map<string, { readonly request: Passing; readonly go: () => void }[]>();
  readonly #done = new Set<string>();
  #inFlight = false;
  /** Whose call went on, in order: the interleaving, for the log. */
  readonly turns: string[] = [];
  /** Each call that went on, in order (what `meanwhile` did came between `calls.length` and the next). */
  readonly calls: Turn[] = [];

  constructor(rng: Random, names: readonly string[], meanwhile?: Meanwhile, holds: readonly Hold[] = []) {
    this.#rng = rng;
    this.#names = names;
    this.#meanwhile = meanwhile;
    this.#holds = holds;
  }

  /** Whether a run came to `hold`. */
  met(hold: Hold): boolean {
    return this.#met.has(hold);
  }

  /** Whether `name`'s run waits at a hold now. */
  holding(name: string): boolean {
    return this.#held.some((held) => held.name === name);
  }

  /** The hooks of `name`'s proxy. */
  hooks(name: string): GateHooks {
    return {
      before: (request) =>
        new Promise<void>((go) => {
          // Every hold of the run hears of every call until met (one may count what it has seen).
          const [hold] = this.#holds.filter((h) => h.name === name && !this.#met.has(h)).filter((h) => h.at(request));
          if (hold) {
            this.#met.add(hold);
            this.#held.push({ name, hold });
          }
          this.#waiting.set(name, [...(this.#waiting.get(name) ?? []), { request, go }]);
          this.#next();
        }),
      after: (request) => {
        this.#meanwhile?.answered?.(name, request);
        this.#inFlight = false;
        this.#next();
      },
    };
  }

  /** `name`'s run is over: the others go on without waiting for it. */
  finished(name: string): void {
    this.#done.add(name);
    this.#next();
  }

  #next(): void {
    if (this.#inFlight) return;
    const running = this.#names.filter((name) => !this.#done.has(name));
    if (running.length === 0 || running.some((name) => (this.#waiting.get(name) ?? []).length === 0)) return;
    const free = running.filter((name) => !this.holding(name));
    if (free.length === 0) {
      this.#release(running);
      return;
    }
    const meanwhile = this.#meanwhile;
    if (meanwhile?.rng.chance(meanwhile.chance)) {
      // Every run waits on a call: what happens now happens between two of their calls, in the seed's order.
      this.#inFlight = true;
      void meanwhile.act().finally(() => {
        this.#inFlight = false;
        this.#next();
      });
      return;
    }
    const name = this.#rng.pick(free);
    const [first, ...rest] = this.#waiting.get(name) ?? [];
    this.#waiting.set(name, rest);
    this.#inFlight = true;
    this.turns.push(name);
    if (first) this.calls.push({ name, method: first.request.method, path: first.request.path });
    first?.go();
  }

  /** Every run still going waits at a hold: the one held first that may go now goes (one with `then` only alone, after it). */
  #release(running: readonly string[]): void {
    const index = this.#held.findIndex((held) => held.hold.then === undefined || running.length === 1);
    const released = this.#held[index];
    if (!released) throw new Error(`runs held at once, none of which may go: ${running.join(', ')}`);
    this.#held.splice(index, 1);
    const then = released.hold.then;
    if (!then) return this.#next();
    this.#inFlight = true;
    void then().finally(() => {
      this.#inFlight = false;
      this.#next();
    });
  }
}

/** The turns as runs of one machine's calls: `A3 B1 A2 B5`. */
export const describeTurns = (turns: readonly string[]): string =>
  turns
    .reduce<[string, number][]>((runs, name) => {
      const last = runs.at(-1);
      if (last?.[0] === name) last[1] += 1;
      else runs.push([name, 1]);
      return runs;
    }, [])
    .map(([name, n]) => `${name}${n}`)
    .join(' ');

const segments = (call: Pick<Turn, 'path'>): string[] => (call.path.split('?')[0] ?? '').split('/');

/** The document (docKey) a call's path names, if any: a read or a write of its body. */
export const documentIn = (path: string): string | undefined => /\/documents\/([^/?]+)/.exec(path)?.[1];

/** A call that writes a document's body (an overwrite: a new document's first body too, after its create). */
export const isBodyWrite = (call: Pick<Turn, 'method' | 'path'>): boolean => call.method === 'POST' && segments(call).at(-1) === 'overwriteContent';

/**
 * Whether a save made in a document (named by any of `ids`) after the first `at` calls landed between a run's
 * look at the document and its write of it (an overwrite or a delete): README's stated window ("a colleague's
 * save ... between kbsync's read of a document and its write of it"), which nothing afterwards can tell. A run
 * that wrote it after the save without reading its blocks again decided from what it knew before (its listing,
 * its record: seed 3010, a push decided on a listing the save came after). A look is a read of its blocks or of
 * its node: a save inside code reads the same, and only the node's time shows it, so a run that asked the time
 * after the save saw it (seed 6018: a move decided on its listing's time deleted a code line saved after it).
 */
export function overwrittenUnread(calls: readonly Turn[], ids: readonly string[], at: number, timeMoved: boolean): boolean {
  const onIt = (call: Turn): boolean => segments(call).some((segment) => ids.includes(segment));
  // A look at the node shows a save only by the later minute it gave the document: one made in the minute the
  // document already bore (a colleague's move or save a moment before, say) leaves the time as the run listed it,
  // and only a read of the blocks could show it (model seed 4029: words saved between a read and the look that
  // came before the write, in the minute of the colleague's move the run had listed).
  const looked = (call: Turn): boolean => call.method === 'GET' && onIt(call) && (segments(call).at(-1) === 'blocks' || (timeMoved && segments(call).at(-2) === 'nodes'));
  return calls.some((call, j) => {
    if (j < at || !onIt(call) || !((call.method === 'POST' && segments(call).at(-1) === 'overwriteContent') || call.method === 'DELETE')) return false;
    return !calls.slice(at, j).some((between) => between.name === call.name && looked(between));
  });
}
