import type { DecisionKind } from '../sync/decide/types.js';
import type { ActionResult } from '../sync/run/executor.js';

type Done = Extract<ActionResult, { ok: true }>;

const and = (phrase: string, detail: string | undefined): string => (detail ? `${phrase} (${detail})` : phrase);

/**
 * What the daemon says happened to a file, one line per event, each beginning with its verb (created, sent,
 * pulled, merged, renamed, moved, deleted, restored…). Exhaustive over the decisions: a new kind of
 * decision does not compile until it has its words. Where a step's own detail already is the whole event
 * (a move, a rename, a trashed file), it is said as it is. Undefined: nothing worth a line (a re-read that
 * found the document as it was).
 */
const SAID: Record<DecisionKind, (result: Done) => string | undefined> = {
  none: (r) => r.detail,
  held: (r) => `held: ${r.detail ?? 'left as is for now'}`,
  conflict: (r) => `conflict: ${r.detail ?? `the other version is in ${r.conflictPath ?? 'a conflict copy'}`}`,
  create: (r) => and('created in the knowledge base', r.detail),
  recreate: () => 'created again in the knowledge base: it was deleted there but edited here',
  link: () => 'linked to its existing document in the knowledge base',
  push: (r) => and('sent to the knowledge base', r.detail),
  pull: (r) => and('pulled from the knowledge base', r.detail),
  merge: (r) => and('merged: your edits and those made in the knowledge base', r.detail),
  'delete-remote': () => 'deleted here, so its document was deleted in the knowledge base (its body is backed up)',
  'trash-local': (r) => r.detail ?? 'deleted in the knowledge base, so the file was moved to the trash',
  restore: () => 'restored: it was deleted here but edited in the knowledge base',
  forget: () => 'forgotten: it is gone both here and in the knowledge base',
  'trash-leftover': (r) => r.detail ?? 'left by an interrupted pull of a document deleted since: moved to the trash',
  rename: (r) => r.detail ?? 'renamed: its document follows',
  move: (r) => r.detail ?? 'moved: a new document in the new folder, the old one deleted',
  'move-local': (r) => r.detail ?? 'moved, as its document was moved in the knowledge base',
  'new-local': (r) => and('pulled: new in the knowledge base', r.detail === 'new in the knowledge base' ? undefined : r.detail),
  'new-local-folder': (r) => r.detail ?? 'folder made here, as in the knowledge base',
};

/** The words for one result, after its path: held and conflicts by what they are, the rest by their decision. */
export function eventWords(result: Done): string | undefined {
  if (result.result === 'held') return SAID.held(result);
  if (result.result === 'conflict') return SAID.conflict(result);
  if (result.result === 'unchanged' && !result.detail) return undefined;
  // A wait: nothing was done (no verb fits), and its words say what it waits for.
  if (result.result === 'unchanged' && result.unrecorded === true) return result.detail;
  return SAID[result.action](result);
}
