import type { Random } from '../chaos/random.js';
import type { GateHooks } from '../helpers/gate-proxy.js';

/**
 * Two (or more) machines' runs at once, their calls to the service taken in an order the seed chooses: each
 * machine talks through a proxy of its own (gate-proxy.ts), and a call goes on only when every machine still
 * running is waiting on one (none is busy deciding), one call at a time, the next machine drawn from `rng`.
 * So the runs interleave for real, call by call, and the same seed interleaves them the same way whatever
 * the event loop's timing.
 */
export class Interleaver {
  readonly #rng: Random;
  readonly #names: readonly string[];
  readonly #waiting = new Map<string, (() => void)[]>();
  readonly #done = new Set<string>();
  #inFlight = false;
  /** Whose call went on, in order: the interleaving, for the log. */
  readonly turns: string[] = [];

  constructor(rng: Random, names: readonly string[]) {
    this.#rng = rng;
    this.#names = names;
  }

  /** The hooks of `name`'s proxy. */
  hooks(name: string): GateHooks {
    return {
      before: () =>
        new Promise<void>((resolve) => {
          this.#waiting.set(name, [...(this.#waiting.get(name) ?? []), resolve]);
          this.#next();
        }),
      after: () => {
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
    const name = this.#rng.pick(running);
    const [go, ...rest] = this.#waiting.get(name) ?? [];
    this.#waiting.set(name, rest);
    this.#inFlight = true;
    this.turns.push(name);
    go?.();
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
