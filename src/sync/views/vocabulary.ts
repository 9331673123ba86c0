import type { DecisionKind } from '../decide/types.js';

/**
 * What a decision comes to for the knowledge base's pages: the column a publishing report (the pull-request
 * preview, the job summary, `outcomes` in JSON) counts it in, once. `moved` is its own: the service cannot move
 * a document, so a move makes a new one (a new URL) in the new folder and deletes the old one; `renamed` keeps
 * the document (and its URL), and only kbsync's record follows the file.
 */
export type Effect = 'created' | 'updated' | 'moved' | 'renamed' | 'deleted' | 'held' | 'pulled' | 'trashed' | 'linked' | 'unchanged' | 'other';

type Words = {
  /** What it means, in the words a person would use (`status`, `diff`, the previews). */
  readonly says: string;
  readonly effect: Effect;
  /** What a run's totals (`counts`) call it once done, where not its result's word (`1 moved`, not `1 pushed`). */
  readonly done?: string;
};

/**
 * The one vocabulary of a decision: every report, preview and total takes its words and its counts from here.
 * Exhaustive, so a new kind of decision does not compile until it is said and counted.
 */
const VOCABULARY: { readonly [K in DecisionKind]: Words } = {
  none: { says: 'nothing to do', effect: 'unchanged' },
  held: { says: 'held', effect: 'held' },
  create: { says: 'new file: a document will be created', effect: 'created' },
  link: { says: 'linked to its existing document', effect: 'linked' },
  push: { says: 'your edits will be pushed', effect: 'updated' },
  pull: { says: 'edits from the knowledge base will be pulled into the file', effect: 'pulled' },
  merge: { says: 'edits on both sides will be merged', effect: 'updated' },
  // The document is left as it is until a person settles the clash: held, as far as the knowledge base goes.
  conflict: { says: 'changed differently on both sides: a conflict copy will be written', effect: 'held' },
  'delete-remote': { says: 'deleted here: its document will be deleted', effect: 'deleted' },
  'trash-local': { says: "deleted in the knowledge base: the file will move to kbsync's trash", effect: 'trashed' },
  restore: { says: 'deleted here but edited in the knowledge base: the file will come back', effect: 'pulled' },
  recreate: { says: 'deleted in the knowledge base but edited here: the document will be created again', effect: 'created' },
  forget: { says: 'gone on both sides: the record will be dropped', effect: 'other' },
  'trash-leftover': { says: "left by an interrupted pull, and deleted in the knowledge base since: the file will move to kbsync's trash", effect: 'trashed' },
  rename: { says: 'renamed: the document keeps its place and URL, and the record follows the file', effect: 'renamed' },
  move: {
    says: 'moved: the service cannot move a document, so a new one (at a new URL) will be made in the new folder and the old one deleted',
    effect: 'moved',
    done: 'moved',
  },
  'move-local': { says: 'moved in the knowledge base: the file will follow', effect: 'pulled' },
  'new-local': { says: 'new in the knowledge base: it will be pulled', effect: 'pulled' },
  'new-local-folder': { says: 'a folder of the knowledge base with no folder here: it will be made here', effect: 'other', done: 'folders' },
};

export const describeDecision = (kind: DecisionKind): string => VOCABULARY[kind].says;

export const effectOf = (kind: DecisionKind): Effect => VOCABULARY[kind].effect;

/** The word a run's totals count a done decision under, when it is not its result's (`counts` in the report). */
export const countedAs = (kind: DecisionKind): string | undefined => VOCABULARY[kind].done;

/** A decision's file as reports name it: `old → new` for one that moves it (or its document). */
export const pathShown = (decided: { readonly path: string; readonly from?: string }): string => (decided.from === undefined ? decided.path : `${decided.from} → ${decided.path}`);

/** One decision as the plan lists it (`diff`, `sync --dry-run`): its tag, then its file. */
export const decisionLine = (decided: { readonly kind: DecisionKind; readonly path: string; readonly from?: string }): string => `  ${decided.kind.padEnd(16)} ${pathShown(decided)}`;

/**
 * What a plan would do, by the decisions' tags, one each (`1 move, 2 push`), held apart, since it is not done:
 * what `sync --dry-run` and `status` both say. `also`: more it would do (images to upload).
 */
export function wouldDo(decided: readonly { readonly kind: DecisionKind }[], also: readonly string[] = []): string {
  const kinds = new Map<DecisionKind, number>();
  for (const { kind } of decided) if (kind !== 'held' && kind !== 'none') kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const held = decided.filter((d) => d.kind === 'held').length;
  const words = [...[...kinds].map(([kind, count]) => `${count} ${kind}`), ...also];
  return `${words.length > 0 ? `would do ${words.join(', ')}` : 'nothing to do'}${held > 0 ? `; ${held} held` : ''}`;
}
