import { heldMessage, type Held } from '../decide/held.js';
import { hashText } from '../../local/index.js';
import { adopt, relink } from '../act/adopt.js';
import { applyBody, type DocOutcome } from '../act/apply-body.js';
import { mintDocument, sendFirstBody } from '../act/create.js';
import { newLocal, newLocalFolder, restore, trashLeftover } from '../act/incoming.js';
import { currentText } from '../act/local-files.js';
import { followRename, moveLocal } from '../act/move-local.js';
import { move } from '../act/move.js';
import { dropRecord, recordHold } from '../act/record.js';
import { deleteRemote, forget, removalFinished, trashLocal, trashWaits } from '../act/removals.js';
import { assess, type AssessIO, type Assessment } from '../views/assess.js';
import type { Detail } from './detail.js';
import type { Births } from './births.js';
import type { SyncContext } from './context.js';
import { decideFirstPush, type BodyDecision } from '../decide/body.js';
import type { Action, ActionKind } from '../decide/types.js';

/** Runs a task in one of the run's slots; a higher priority is served first. */
export type Slot = <T>(task: () => Promise<T>, priority?: number) => Promise<T>;

/** What carrying out one action works with; `stopped`: no action starts any more (the run is stopping). */
export type Carrier = { readonly ctx: SyncContext; readonly io: AssessIO; readonly births: Births; readonly slot: Slot; readonly stopped: () => boolean };

/** A new body waiting for documents other actions of this run are creating (its links' targets). */
type Later = { readonly after: Promise<void>; readonly finish: () => Promise<DocOutcome> };

/** Carries out one decision: the handler of its detail's tag. */
export function perform<K extends ActionKind>(carrier: Carrier, assessment: Assessment<K>): Promise<DocOutcome | Later> {
  const handler: Handler<K> = HANDLERS[assessment.detail.tag];
  return handler(carrier, assessment);
}

/** Carries out the decisions whose detail has one of the tags `K`, from the detail alone (and the run's context). */
type Handler<K extends ActionKind> = (carrier: Carrier, assessment: Assessment<K>) => Promise<DocOutcome | Later>;

/**
 * Held before any read, or held by a check: remembered with what it was decided on, so the next run needs no read
 * to know. A hold stands on the planned record (the ledger row the plan named), so it is read from the action.
 */
async function recordedHold({ ctx }: Carrier, { action, path }: Assessment, held: Held): Promise<DocOutcome> {
  let fresh = true;
  let from: string | undefined;
  let followed = false;
  let url: string | undefined;
  if ('record' in action) {
    const file = await currentText(ctx, path).catch(() => undefined);
    const listed = ctx.remote?.docs.get(action.record.docKey);
    const remoteModifiedTime = listed?.modifiedTime ?? action.record.remoteModifiedTime;
    url = listed?.url ?? ctx.ledger.documents.summary(action.record.path)?.url;
    if (action.record.path !== path) from = action.record.path;
    // A file renamed while its conflict is open takes the conflict along: its record follows it, and the conflict
    // is settled under the name the person now uses (soak seed 12: left at the old name, kbsync resolve listed
    // nothing, and every later edit of the renamed file stayed on this machine, unsaid).
    followed = from !== undefined && held.code === 'CONFLICT_OPEN';
    if (followed && from !== undefined) followRename(ctx, from, path);
    fresh = recordHold(ctx, followed ? path : action.record.path, { code: held.code, localHash: file ? hashText(file.text) : '', remoteModifiedTime });
  }
  const detail = followed ? `renamed from ${from}, its conflict along with it: ${heldMessage(held, path, url)}` : heldMessage(held, from ?? path, url);
  // A file with no record (a create held, JUST_CREATED) has no row to remember its hold by.
  return { path, result: 'held', detail, ...(fresh || followed ? {} : { repeated: true }), ...('record' in action ? {} : { unrecorded: true }), ...(from !== undefined ? { from } : {}) };
}

/** A decision its check may hold: the hold is recorded instead of carrying it out. */
const unlessHeld =
  <K extends ActionKind>(handler: Handler<K>): Handler<K> =>
  (carrier, assessment) =>
    assessment.held ? recordedHold(carrier, assessment, assessment.held) : handler(carrier, assessment);

/**
 * A push, pull, check or merge: the body decision applied (it records its own hold). The write of an earlier run,
 * stopped before it could say it, is said by this one, which records it: no run said it before (the killed one
 * printed nothing, and this one found nothing left to do).
 */
const applyTheBody: Handler<'push' | 'pull' | 'check' | 'merge'> = async ({ ctx }, { detail }) => {
  const outcome = await applyBody(ctx, detail.record, detail.listed, detail.before, detail.remote, detail.body);
  if (!detail.finished) return outcome;
  return { ...outcome, ...(outcome.result === 'unchanged' ? { result: 'pushed' } : {}), detail: [FINISHED, outcome.detail].filter(Boolean).join('; ') };
};
const FINISHED = 'sent by an earlier run that was stopped before it could say so';

const createDocument = unlessHeld<'create' | 'recreate'>((carrier, { path, detail }) => create(carrier, path, detail));

/**
 * How each decision is carried out, by its detail's tag (as mdast-util-to-markdown dispatches node handlers):
 * exhaustive, so a new action does not compile without its handler, and each handler's detail is its own.
 */
const HANDLERS: { readonly [K in ActionKind]: Handler<K> } = {
  held: (carrier, assessment) => recordedHold(carrier, assessment, assessment.detail.held),
  forget: async ({ ctx }, { detail }) => (detail.finishes ? removalFinished(ctx, detail.record, detail.finishes) : forget(ctx, detail.record, 'deleted on both sides')),
  'trash-leftover': async ({ ctx }, { path }) => trashLeftover(ctx, path),
  'new-local-folder': async ({ ctx }, { detail }) => newLocalFolder(ctx, detail.folder),
  'move-local': (carrier, { detail }) => moveLocalAndCheck(carrier, detail.move),
  create: createDocument,
  recreate: createDocument,
  'new-local': async ({ ctx }, { path, detail }) => newLocal(ctx, detail.remote, path, detail, detail.leftover),
  relink: async ({ ctx }, { detail }) => relink(ctx, detail.record, detail.before),
  adopt: async ({ ctx }, { kind, path, detail }) => {
    // A file the shared state knows, paired with a document this run did not list: nothing to adopt it into.
    if (!detail.listed) throw new Error(`no way to carry out ${kind} for ${path} (${detail.tag})`);
    return adopt(ctx, path, detail.listed, detail.before, detail.remote, detail.decision, detail.known);
  },
  push: applyTheBody,
  pull: applyTheBody,
  check: applyTheBody,
  merge: applyTheBody,
  'delete-remote': unlessHeld(async ({ ctx }, { kind, path, detail }) => {
    const { record, remote, decision } = detail;
    if (decision.kind === 'forget') return forget(ctx, record, 'already deleted in the knowledge base');
    // A document found gone is forgotten (decideDelete): every other decision was made on its blocks.
    if (remote === 'gone') throw new Error(`no way to carry out ${kind} for ${path} (${detail.tag})`);
    if (decision.kind === 'restore') return restore(ctx, record, detail.listed, decision.text, remote, decision.marks, detail.at);
    return deleteRemote(ctx, record, remote);
  }),
  'trash-local': unlessHeld(async ({ ctx }, { detail: { record, decision } }) => {
    if (decision.kind === 'forget') return forget(ctx, record, 'gone on both sides');
    // Nothing decided yet: the next run, with the deleter's `gone` or its two minutes over, decides it.
    if (decision.kind === 'none') return trashWaits(record.path);
    return trashLocal(ctx, record);
  }),
  restore: async ({ ctx }, { detail }) => restore(ctx, detail.record, detail.listed, detail.text, detail.remote, detail.marks, detail.at),
  move: async ({ ctx }, { detail }) => move(ctx, detail.record, detail.to, detail.listed, detail.before, detail.remote, detail.decision, { title: detail.title, followed: detail.followed }),
};

/**
 * A file moved after its document (moved in the web editor, or renamed by another machine): when the
 * document's time moved too, another writer published a version of it, or the file was edited here, it is
 * read at the new path in the same run, so an edit made with the move reaches the file now and is said, not a
 * run later, and an edit made here reaches the document now.
 */
async function moveLocalAndCheck(carrier: Carrier, action: Extract<Action, { kind: 'move-local' }>): Promise<DocOutcome> {
  const moved = await moveLocal(carrier.ctx, action.record, action.to, action.remote, action.renamedElsewhere === true);
  // Another writer's version not taken in yet (model seed 120111: the front matter of the machine that renamed
  // the file) is read now too: left for a later run, this machine's record at the new path was published over it.
  const unchanged = action.remote.modifiedTime === action.record.remoteModifiedTime && !action.record.recheck;
  if (unchanged && action.republished !== true && action.edited !== true) return moved;
  const checked = await assess(carrier.io, { kind: 'check', record: { ...action.record, path: action.to }, remote: action.remote });
  const body = await perform(carrier, checked);
  // Only a new document waits for others (its links' targets): a check of an existing one never does.
  if ('after' in body) throw new Error(`the check of ${action.to} after its move waited for other documents`);
  if (body.result === 'unchanged' && !body.detail) return moved;
  // Its hold is the check's, which the move-local's own decision cannot name: the report gives its code all the same.
  return { ...body, path: action.to, detail: [moved.detail, body.detail ?? body.result].filter(Boolean).join('; '), ...(checked.held ? { reason: checked.held.code } : {}) };
}

/**
 * A new document for the file; a record of one deleted remotely goes first, so the file is created anew.
 * When the body links to files this run is creating too, it is decided again, with their URLs, once
 * their documents exist.
 */
async function create(carrier: Carrier, path: string, detail: Detail<'create' | 'recreate'>): Promise<DocOutcome | Later> {
  const { ctx, births } = carrier;
  const replaces = detail.tag === 'recreate' ? detail.replaces : undefined;
  if (replaces) {
    const old = ctx.ledger.documents.byDocKey(replaces);
    if (old) dropRecord(ctx, old.path, old.docKey);
  }
  const minted = await mintDocument(ctx, path, detail.title, replaces ? { deleted: replaces } : undefined, detail.body.send ? detail.body.baseText : undefined);
  births.born(path);
  const said = (outcome: DocOutcome): DocOutcome => (replaces ? { ...outcome, detail: 'deleted in the knowledge base but edited locally, so it was created again' } : outcome);
  const after = ctx.urlOf && births.awaited(ctx.urlOf.waitingFor(path));
  if (!after) return said(await sendFirstBody(ctx, minted, detail.before, detail.body));
  const body = (): BodyDecision => decideFirstPush({ mode: ctx.mode, force: ctx.force, path, fileText: detail.before.text, urlOf: ctx.urlOf });
  return { after, finish: async () => said(await sendFirstBody(ctx, minted, detail.before, body())) };
}

