import type { DocumentRecord } from '../../ledger/index.js';
import type { TextFile } from '../../local/index.js';
import type { Block } from '../../model/blocks.js';
import type { AdoptDecision } from '../decide/adopt.js';
import type { BodyDecision } from '../decide/body.js';
import type { MoveDecision } from '../decide/move.js';
import type { DeleteDecision, TrashDecision } from '../decide/removals.js';
import type { Held } from '../decide/held.js';
import type { Action, ActionKind, DecisionKind, ReadingMarks, RecordEntry, RemoteDoc, RemoteFolder } from '../decide/types.js';

/**
 * What carrying out a decision needs, tagged with the action that carries it out (the same names as the plan's
 * actions, one variant each): each variant holds all of it, so the executor dispatches on the tag alone and
 * looks back at the action only for the record a hold stands on. The tag can differ from the planned action's (a
 * file gone since the plan is held; a trashed file edited here is created again); the words every report uses
 * are read off the detail (AS_DECIDED below), so they cannot differ from what is carried out.
 */
export type Detail<K extends ActionKind = ActionKind> = { readonly [P in K]: { readonly tag: P } & Details[P] }[K];

/** The document as this run's listing shows it (by the planned record's key), for a step that writes where it is. */
type Listed = { readonly listed: RemoteDoc | undefined };

/**
 * Applying a body decision: what a push, a pull, a check and a merge all come to once the document is read.
 * `finished`: the file's last edit reached the document by an earlier run that was stopped before it could record
 * and say it (interrupted.ts withLandedPush): this run records it, and says it as sent.
 */
type BodyDetail = Listed & { readonly record: DocumentRecord; readonly before: TextFile; readonly remote: readonly Block[]; readonly body: BodyDecision; readonly finished?: true };

/** A new document for the file, its body decided before the document is made. */
type NewDocument = { readonly before: TextFile; readonly body: BodyDecision; readonly title: string };

/** Where a restored file comes back (`at`): the folder its document was moved to, when the plan saw a move. */
export type Place = { readonly at?: string };

/** Each action's detail, by its tag; indexing by every ActionKind (Detail) makes a missing one a compile error. */
type Details = {
  /** Nothing to carry out but the hold itself, recorded with what it was decided on. */
  readonly held: { readonly held: Held };
  /** `finishes`: the removal an interrupted run made and did not record, which is why both are gone (said as it). */
  readonly forget: { readonly record: RecordEntry; readonly finishes?: 'trash-local' | 'delete-remote' };
  readonly 'trash-leftover': Record<never, never>;
  readonly 'new-local-folder': { readonly folder: RemoteFolder };
  readonly 'move-local': { readonly move: Extract<Action, { kind: 'move-local' }> };
  readonly create: NewDocument;
  /** `replaces`: the record of a document deleted remotely, dropped first. */
  readonly recreate: NewDocument & { readonly replaces: DocumentRecord['docKey'] };
  readonly push: BodyDetail;
  readonly pull: BodyDetail;
  readonly check: BodyDetail;
  readonly merge: BodyDetail;
  /** `known`: a file the shared state knows whose source is missing there: its ids are kept. */
  readonly adopt: { readonly listed: RemoteDoc | undefined; readonly before: TextFile; readonly remote: readonly Block[]; readonly decision: AdoptDecision; readonly known?: RecordEntry };
  /** A file the shared state knows, unchanged on both sides: recorded here with no call. */
  readonly relink: { readonly record: DocumentRecord; readonly before: TextFile };
  readonly 'delete-remote': Place & Listed & { readonly record: DocumentRecord; readonly remote: readonly Block[] | 'gone'; readonly decision: DeleteDecision };
  readonly 'trash-local': { readonly record: DocumentRecord; readonly before: TextFile | undefined; readonly decision: TrashDecision };
  readonly restore: Place & Listed & { readonly record: DocumentRecord; readonly remote: readonly Block[]; readonly text: string; readonly marks: ReadingMarks };
  /**
   * `to`: the file's new path; `title`: the new document's title when it is given another (`--retitle`); `followed`:
   * an interrupted run moved the file after its document (a move-local, finished: `elsewhere`, another machine's rename).
   */
  readonly move: Listed & {
    readonly record: DocumentRecord;
    readonly before: TextFile;
    readonly remote: readonly Block[] | 'gone';
    readonly decision: MoveDecision;
    readonly to: string;
    readonly title: string | undefined;
    readonly followed?: { readonly elsewhere: boolean };
  };
  /**
   * `remote`: the document as listed; `leftover`: the copy an interrupted pull left elsewhere, trashed once this
   * file is written; `blocksHash`: set when the blocks are the prediction of an unchanged document (no read), with its real hash.
   */
  readonly 'new-local': { readonly remote: RemoteDoc; readonly leftover: string | undefined; readonly text: string; readonly blocks: readonly Block[]; readonly blocksHash?: string; readonly known?: RecordEntry; readonly marks: ReadingMarks; readonly waiting?: true };
};

/** The body decision a detail applies, and the file it was decided on: a push, pull, check or merge, or a move's new document. */
export function bodyOf(detail: Detail): { readonly before: TextFile; readonly body: BodyDecision } | undefined {
  switch (detail.tag) {
    case 'push':
    case 'pull':
    case 'check':
    case 'merge':
      return detail;
    case 'move':
      return 'body' in detail.decision ? { before: detail.before, body: detail.decision.body } : undefined;
    default:
      return undefined;
  }
}

/** What a detail comes to in the words of every report (`kind`), and the hold it carries, if any. */
type AsDecided = { readonly kind: DecisionKind; readonly held?: Held };

/**
 * The words of each detail, by its tag: `kind` and `held` are read off the detail, never set beside it, so the
 * report cannot say other than what is carried out. Exhaustive, like the executor's handler table.
 */
const AS_DECIDED: { readonly [K in ActionKind]: (detail: Detail<K>) => AsDecided } = {
  held: (detail) => ({ kind: 'held', held: detail.held }),
  forget: (detail) => ({ kind: detail.finishes ?? 'forget' }),
  'trash-leftover': ownTag,
  'new-local-folder': ownTag,
  'move-local': ownTag,
  'new-local': ownTag,
  restore: ownTag,
  relink: () => ({ kind: 'none' }),
  create: (detail) => firstPush(detail.body, 'create'),
  recreate: (detail) => firstPush(detail.body, 'recreate'),
  push: appliedOrFinished,
  pull: appliedOrFinished,
  check: appliedOrFinished,
  merge: appliedOrFinished,
  adopt: ({ decision }) => (decision.kind === 'replace' ? applied(decision) : { kind: decision.kind }),
  'delete-remote': ({ decision }) => checked(decision),
  'trash-local': ({ decision }) => checked(decision),
  move: ({ decision, followed }) => (followed && decision.kind === 'rename' ? { kind: 'move-local' } : checked(decision)),
};

export function asDecided<K extends ActionKind>(detail: Detail<K>): AsDecided {
  const words: (detail: Detail<K>) => AsDecided = AS_DECIDED[detail.tag];
  return words(detail);
}

/** A decision its action's own tag names. */
function ownTag({ tag }: { readonly tag: DecisionKind }): AsDecided {
  return { kind: tag };
}

/** A body decision applied (an adopt that replaces the document's body, too). */
function applied({ body }: { readonly body: BodyDecision }): AsDecided {
  return { kind: body.kind, ...(body.held ? { held: body.held } : {}) };
}

/** A body decision applied; with nothing left to do, an interrupted run's write it records is this run's push. */
function appliedOrFinished(detail: Detail<'push' | 'pull' | 'check' | 'merge'>): AsDecided {
  return detail.finished && detail.body.kind === 'none' ? { kind: 'push' } : applied(detail);
}

/** A new document, unless its first body is held. */
function firstPush(body: BodyDecision, kind: 'create' | 'recreate'): AsDecided {
  return { kind: body.kind === 'held' ? 'held' : kind, ...(body.held ? { held: body.held } : {}) };
}

/** A removal or a move, as its check decided it. */
function checked(decision: DeleteDecision | TrashDecision | MoveDecision): AsDecided {
  return { kind: decision.kind, ...(decision.kind === 'held' ? { held: decision.held } : {}) };
}
