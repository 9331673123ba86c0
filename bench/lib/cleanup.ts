import { rm } from 'node:fs/promises';

/**
 * Everything a benchmark starts (temp folders, child processes, emulators) registers how to undo it
 * here, so one call releases it all, in reverse order, on success, failure or Ctrl-C alike.
 */
type Undo = { readonly what: string; readonly run: () => Promise<void> | void };

const undos: Undo[] = [];

/** Registers an undo; returns a function that runs it now (once) and forgets it. */
export function onCleanup(what: string, run: () => Promise<void> | void): () => Promise<void> {
  const undo: Undo = { what, run };
  undos.push(undo);
  return async () => {
    const at = undos.indexOf(undo);
    if (at < 0) return;
    undos.splice(at, 1);
    await undo.run();
  };
}

/** A temp folder removed at cleanup. */
export function removeAtCleanup(dir: string): () => Promise<void> {
  return onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
}

/** Runs every registered undo, newest first; a failing undo is reported and the rest still run. */
export async function cleanupAll(): Promise<void> {
  while (undos.length > 0) {
    const undo = undos.pop() as Undo;
    try {
      await undo.run();
    } catch (error) {
      console.error(`bench: cleanup "${undo.what}" failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
