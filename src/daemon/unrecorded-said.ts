import type { Ledger } from '../ledger/index.js';
import type { ActionResult } from '../sync/run/executor.js';
import { keyOf } from './cycle-log.js';

/**
 * What the daemon said of the holds and waits that nothing records (DocOutcome.unrecorded): a file with no ledger row
 * yet (a create held; a document of its title made a moment ago, JUST_CREATED), or a wait each run decides afresh (a
 * move or a file's edit whose document changed a moment ago, MOVE_JUST_EDITED and JUST_EDITED; a new document whose
 * writer's record is on its way). The ledger tells a recorded hold's repeats (act/record.ts recordHold); these, said
 * at every cycle while they stood, were a warning (and a notice) each local cycle and sweep (issue 44). Said once while
 * the same words stand; said again once anything else happened to the file, or a sweep, which meets every file, did
 * not meet it.
 *
 * Kept in the ledger too (unrecorded_said), so that a restart within the hold's minute or two (a crash, a SIGKILL, a
 * re-login) does not say it again: the changes of a cycle wait here until `keep` writes them, after the cycle.
 */
export class UnrecordedSaid {
  readonly #ledger: Ledger;
  /** Path: the key of the words said of it (what the ledger holds, with this cycle's changes). */
  readonly #said: Map<string, string>;
  /** The paths whose words changed since the last `keep`. */
  readonly #changed = new Set<string>();

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
    this.#said = ledger.isOpen ? ledger.unrecordedSaid.all() : new Map();
  }

  /** The result, marked `repeated` where it is such a hold or wait said before in the same words. */
  mark(result: ActionResult): ActionResult {
    if (!result.ok || result.unrecorded !== true) {
      this.#forget(result.path);
      return result;
    }
    // Hashed, as the ledger keeps it: of a bounded size, and none of the words a person wrote (a title).
    const words = keyOf(result.result, result.reason ?? '', result.detail ?? '');
    if (this.#said.get(result.path) === words) return { ...result, repeated: true };
    this.#said.set(result.path, words);
    this.#changed.add(result.path);
    return result;
  }

  /** After a sweep: what it did not meet stands no longer. */
  swept(results: readonly ActionResult[]): void {
    const met = new Set(results.map((result) => result.path));
    for (const path of [...this.#said.keys()]) if (!met.has(path)) this.#forget(path);
  }

  /** Writes what changed since the last call, in one transaction; throws (and keeps it for the next call) when the ledger cannot be written. */
  keep(): void {
    if (this.#changed.size === 0) return;
    this.#ledger.transaction(() => {
      for (const path of this.#changed) this.#ledger.unrecordedSaid.record(path, this.#said.get(path));
    });
    this.#changed.clear();
  }

  #forget(path: string): void {
    if (this.#said.delete(path)) this.#changed.add(path);
  }
}
