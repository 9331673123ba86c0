import type { Stats } from 'node:fs';
import { SafetyError } from '../errors.js';
import { sameFingerprint, statFingerprint, type FileFingerprint } from './fingerprint.js';

/** What a destructive local action expects to find: the file as last read, or no file at all. */
export type Expectation = FileFingerprint | 'absent';

/**
 * Design rule 3: before replacing or deleting a local file, confirm it is still what was last
 * read. A mismatch means the user edited it meanwhile; the engine rescans and merges instead.
 */
export function checkExpectation(rel: string, current: Stats | null, expect: Expectation | undefined): void {
  if (expect === undefined) return;
  if (expect === 'absent') {
    if (current !== null) throw changed(rel, 'a file appeared there');
    return;
  }
  if (current === null) throw changed(rel, 'it was deleted');
  if (!sameFingerprint(statFingerprint(current), expect)) throw changed(rel, 'it was edited');
}

function changed(rel: string, what: string): SafetyError {
  return new SafetyError('FILE_CHANGED', `"${rel}" changed since kbsync last read it (${what}), so it was left untouched.`, {
    hint: 'Nothing to do: the next sync sees the change and merges it.',
  });
}
