/**
 * Thrown by a step that finds the run stopping (Ctrl+C, SIGTERM) before it has changed anything: a create that
 * waited for its turn (act/create.ts). The executor leaves its action, whole, to the next run, unreported, as
 * one that never started; a stop's few seconds go to the work really under way.
 */
export class StoppedBeforeStart extends Error {
  constructor(path: string) {
    super(`the run stopped before the create of "${path}" was sent`);
  }
}
