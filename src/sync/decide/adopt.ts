import { blocksToMarkdown } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import { joinText, splitText } from '../content/document-text.js';
import type { UrlOfPath } from '../content/links.js';
import { decideFirstPush, type BodyDecision } from './body.js';
import { agrees, pushMarkdown } from './push-markdown.js';
import type { SyncMode } from './types.js';

type AdoptFacts = {
  readonly mode: SyncMode;
  readonly force: boolean;
  readonly path: string;
  readonly fileText: string;
  /** The existing document's blocks. */
  readonly remote: readonly Block[];
  readonly urlOf: UrlOfPath | undefined;
  /** An interrupted run was writing exactly this file from this document (its write-local intent is still open). */
  readonly interruptedPull: boolean;
};

/**
 * A local file with no record, paired with the document that is its twin (a fresh clone, a lost ledger,
 * a create whose answer was lost):
 * - `link`: same content; just record the pairing.
 * - `pull`: an interrupted run was pulling this very file; finish it (its text may be there already), it is no conflict.
 * - `replace`: an empty document (created, never written), or a push-only run (the repository owns its
 *   documents): the file is pushed over it, the old body backed up first.
 * - `conflict`: different content and no shared history: nobody can tell which side is newer, so the file
 *   stays, the document's version goes beside it, and nothing is pushed until the file is edited again.
 */
export type AdoptDecision =
  | { readonly kind: 'link' }
  | { readonly kind: 'pull'; readonly nextFile: string }
  | { readonly kind: 'replace'; readonly body: BodyDecision; readonly replacing: boolean }
  | { readonly kind: 'conflict'; readonly conflictCopy: string };

export function decideAdopt(facts: AdoptFacts): AdoptDecision {
  const split = splitText(facts.fileText);
  const finishing = facts.mode !== 'push' && facts.interruptedPull;
  // The file already says what the document does. Written by the interrupted pull, it is that pull's, said as one
  // (a link said "linked to its existing document" of a file the user never had); its text stays, whatever
  // formatting the pull wrote that a plain reading lacks.
  if (agrees(pushMarkdown(split.body, facts.path, facts.urlOf), facts.remote)) return finishing ? { kind: 'pull', nextFile: facts.fileText } : { kind: 'link' };
  const theirs = joinText(split.head, blocksToMarkdown(facts.remote));
  if (finishing) return { kind: 'pull', nextFile: theirs };
  if (facts.remote.length === 0 || facts.mode === 'push') {
    // Decided as for a record that holds the document's body and no base: the file is all local change.
    const body = decideFirstPush({ mode: facts.mode, force: facts.force, path: facts.path, fileText: facts.fileText, urlOf: facts.urlOf }, facts.remote);
    return { kind: 'replace', body, replacing: facts.remote.length > 0 };
  }
  return { kind: 'conflict', conflictCopy: theirs };
}
