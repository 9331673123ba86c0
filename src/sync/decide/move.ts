import type { Block } from '../../model/blocks.js';
import { decideBody, decideFirstPush, type BodyDecision, type BodyFacts } from './body.js';
import { doubtHolds } from './web-edits.js';
import { held, type Held } from './held.js';
import { deletionBlocked } from './removals.js';
import type { Origin } from '../../ledger/index.js';

/**
 * A file whose document should be somewhere else in the knowledge base: renamed or moved locally, or
 * moved by an earlier run that could only rename its record. The service has no rename or move, so:
 * - `rename`: the document stays where it is and its record follows the file (same remote place, or a
 *   document kbsync did not create and so cannot delete, or a conflict to settle first);
 * - `move`: a new document at the new place gets the file (with the remote's edits merged in, two-way),
 *   then the old one is deleted: a crash in between leaves two documents, never none;
 * - `held`: a push-only run cannot move a document edited remotely without losing that edit, nor any run one whose
 *   new document could not take the file (its placeholders: MOVE_PLACEHOLDERS).
 */
export type MoveDecision =
  | { readonly kind: 'rename'; readonly body: BodyDecision; readonly note?: string }
  | { readonly kind: 'move'; readonly body: BodyDecision }
  | { readonly kind: 'held'; readonly held: Held; readonly body: BodyDecision }
  | { readonly kind: 'recreate' };

/** Why the old document of a move stays, by the hold that blocks its deletion. */
const WHY_NOT_DELETABLE: Partial<Record<Held['code'], string>> = {
  NOT_CREATED: 'kbsync did not create it',
  CREATE_ANSWER_LOST: 'the answer that created it was lost',
  ID_UNVERIFIED: 'the id that deletes it comes only from the unauthenticated shared state (no state key)',
};

export function decideMove(facts: {
  readonly body: Omit<BodyFacts, 'remote'>;
  readonly record: { readonly nodeId: string | null; readonly origin: Origin };
  /** The document is at the place the file's path asks for. */
  readonly samePlace: boolean;
  /** The old document's blocks, or gone (deleted remotely since the listing). */
  readonly remote: readonly Block[] | 'gone';
}): MoveDecision {
  if (facts.remote === 'gone') return { kind: 'recreate' };
  const body = decideBody({ ...facts.body, remote: facts.remote });
  if (facts.samePlace) return { kind: 'rename', body };
  // A document kbsync cannot delete stays where it is, and keeps all it holds: only its record follows the file.
  const blocked = deletionBlocked(facts.record);
  if (blocked) {
    return { kind: 'rename', body, note: `the document stays in its old place: ${WHY_NOT_DELETABLE[blocked.code] ?? 'kbsync cannot delete it'}, so it cannot delete it there; move it in the web editor` };
  }
  // A move whose new document could not take its first body waits, forced or not: the placeholders in the file (or
  // merged into it) stand for blocks no new document can hold. Made, the old document was deleted and the new one
  // stayed empty, the page in the files alone until a person settled that body's hold (model seed 6018, issue 44).
  // A move still waiting for its document's time to be explained is decided by the run that explains it (below):
  // another machine's version may bring the source.
  const waits = body.waiting === true && !facts.body.force;
  if (!waits && body.kind !== 'conflict' && newDocumentRefuses(facts.body, body)) return { kind: 'held', held: held('MOVE_PLACEHOLDERS'), body };
  // A move makes the document anew from the file: what the old one holds beyond kbsync's reading would go.
  // (Formatting of words a colleague wrote goes as an overwrite's would, when merge.webEdits lets it.)
  const lossHolds = body.lossy && doubtHolds(body.formattingOnly ? 'formatting' : 'content', facts.body.webEdits);
  if ((lossHolds || body.hiddenEdit !== null) && !facts.body.force) return { kind: 'held', held: held('MOVE_LOSSY'), body };
  // Its time moved a moment ago with nothing to explain it yet (BodyDecision.waiting): another machine's write, its
  // record on the way, or a colleague's edit reads cannot show. The body may wait for the run that tells them apart,
  // and so must the move, which deletes the document (model seeds 1015 and 6018: a colleague's code edit deleted).
  if (waits) return { kind: 'held', held: held('MOVE_JUST_EDITED'), body };
  if (body.kind === 'held') return { kind: 'held', held: body.held ?? held('MOVE_EDITED'), body };
  if (body.remoteChanged && facts.body.mode === 'push') return { kind: 'held', held: held('MOVE_EDITED'), body };
  if (body.kind === 'conflict') return { kind: 'rename', body, note: 'the document moves once the conflict is resolved' };
  return { kind: 'move', body };
}

/** The first body of the new document a move makes (the file, with the old document's edits merged in) would be held. */
const newDocumentRefuses = (facts: Omit<BodyFacts, 'remote'>, body: BodyDecision): boolean =>
  decideFirstPush({ mode: facts.mode, force: facts.force, path: facts.path, fileText: body.nextFile ?? facts.fileText, urlOf: facts.urlOf }).kind === 'held';
