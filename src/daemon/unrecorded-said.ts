import type { ActionResult } from '../sync/run/executor.js';

/**
 * What the daemon said of the holds and waits that nothing records (DocOutcome.unrecorded): a file with no ledger row
 * yet (a create held; a document of its title made a moment ago, JUST_CREATED), or a wait each run decides afresh (a
 * move whose document changed a moment ago, MOVE_JUST_EDITED; a new document whose writer's record is on its way). The
 * ledger tells a recorded hold's repeats (act/record.ts recordHold); these, said at every cycle while they stood, were
 * a warning (and a notice) each local cycle and sweep (issue 44). Said once while the same words stand; said again
 * once anything else happened to the file, or a sweep, which meets every file, did not meet it.
 */
export class UnrecordedSaid {
  readonly #said = new Map<string, string>();

  /** The result, marked `repeated` where it is such a hold or wait said before in the same words. */
  mark(result: ActionResult): ActionResult {
    if (!result.ok || result.unrecorded !== true) {
      this.#said.delete(result.path);
      return result;
    }
    const words = `${result.result}\0${result.reason ?? ''}\0${result.detail ?? ''}`;
    if (this.#said.get(result.path) === words) return { ...result, repeated: true };
    this.#said.set(result.path, words);
    return result;
  }

  /** After a sweep: what it did not meet stands no longer. */
  swept(results: readonly ActionResult[]): void {
    const met = new Set(results.map((result) => result.path));
    for (const path of [...this.#said.keys()]) if (!met.has(path)) this.#said.delete(path);
  }
}
