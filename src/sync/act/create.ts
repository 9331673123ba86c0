import { isConflict, isOutcomeUnknown, type RemoteNode } from '../../api/index.js';
import { KbsyncError } from '../../errors.js';
import type { DocumentRecord, Origin } from '../../ledger/index.js';
import type { TextFile } from '../../local/index.js';
import { asDocKey, type CreationNodeId, type DocKey, type TreeNodeId } from '../../model/ids.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import { crashPoint } from '../run/crash-points.js';
import { StoppedBeforeStart } from '../run/stopped.js';
import { decideBody, decideFirstPush, type BodyDecision } from '../decide/body.js';
import { folderOf } from '../decide/placement.js';
import { agrees, pushMarkdown } from '../decide/push-markdown.js';
import { splitText } from '../content/document-text.js';
import { applyBody, type DocOutcome } from './apply-body.js';
import { firstBody } from '../state/announce.js';
import type { CreateTurn } from '../state/journal.js';
import { underAMinuteOld } from '../state/minutes.js';
import { createAttempts, withIntent } from './intent.js';
import { dropRecord, recordAgreement, UNMATCHABLE } from './record.js';
import { ensureRemoteFolder, findChild } from './remote-folders.js';

type Created = { readonly docKey: DocKey; readonly treeNodeId: TreeNodeId; readonly nodeId: CreationNodeId | null; readonly url: string; readonly origin: Found };

/**
 * The document a new one stands in for: one deleted in the knowledge base (a re-creation), or one deleted once
 * the new one exists (a move). The shared state is told (DocRecord `rp`), so no other machine makes a third.
 * A move's `madeFrom`: the version its page was decided on (BodyDecision.builtOn), which the new document's first
 * record names (DocRecord `b`); its `carriedHead`: the front matter its page kept across a plain reading of another
 * writer's change no record explained yet (BodyDecision.headCarried), which the new document's first body carries on.
 */
type Replacing = { readonly deleted: DocKey } | { readonly moved: DocumentRecord; readonly madeFrom?: string; readonly carriedHead?: string };

/**
 * How the document for a file came to be: `made` by this create; or found where it had been made, by an earlier
 * create of this machine whose answer was lost (`ours`), by a run stopped before it kept the id (an `orphan`:
 * empty past the minutes a first body takes), or by another writer just now, holding this file's very text
 * (`same`: its writer has the id). Only `made` holds the id that deletes it.
 */
type Found = 'made' | 'ours' | 'orphan' | 'same';

/** A document made (or found again) for a local file, recorded in the ledger with no body agreed yet. */
type Minted = { readonly record: DocumentRecord; readonly origin: Found };

/**
 * Creates the document for a local file (`before`: its text), then pushes its first body. The ledger row
 * is written as soon as the service answers, with an empty base, so a crash before the push leaves a row
 * that the next run completes: never a second document. A create whose answer was lost (reset, timeout)
 * or that clashes with a name made meanwhile is found again by listing the parent, and adopted.
 * The body is decided again once the document exists: a link of the file to itself (a moved page's link to
 * its own name) then goes out with the new document's URL, not as written and again after the run.
 */
export async function createDocument(
  ctx: SyncContext,
  path: string,
  title: string,
  before: TextFile,
  /** A moved document's deletion is promised in the same transaction that records this one. */
  replacing?: Replacing,
): Promise<DocOutcome> {
  const carriedHead = replacing && 'moved' in replacing ? replacing.carriedHead : undefined;
  const first = (): BodyDecision => movedFirstBody(decideFirstPush({ mode: ctx.mode, force: ctx.force, path, fileText: before.text, urlOf: ctx.urlOf }), replacing);
  // What the first body makes the document hold (announced with its ids) is the file's text: links do not change it.
  const announced = first();
  const minted = await mintDocument(ctx, path, title, replacing, announced.send ? announced.baseText : undefined);
  return sendFirstBody(ctx, minted, before, first(), carriedHead);
}

/**
 * A moved page's first body in its new document (Replacing `moved`) names the version the move decided on the old
 * document was made from (`madeFrom`; DocRecord `b`). Another machine whose write landed in the old document after
 * this machine read it (no conditional write) follows the move knowing the new document lacks that write, made from
 * the version before it, and merges its edit in against that version (a branch: state/published-version.ts), not
 * takes the new document for a change that removed it (convergence soak 751: the edit was then in no file and no
 * document). Against what its write replaced alone, a paragraph it deleted read as one the new document added.
 */
const movedFirstBody = (decision: BodyDecision, replacing: Replacing | undefined): BodyDecision => {
  if (!replacing || !('moved' in replacing)) return decision;
  const made = replacing.madeFrom !== undefined && decision.send !== undefined ? { ...decision, builtOn: replacing.madeFrom } : decision;
  return carriedOn(made, replacing.carriedHead);
};

/**
 * A moved page's first body in its new document, its front matter still the one carried across a plain reading
 * (`carriedHead`): not known from the writer of what was read, whatever document holds the body now. Said exact,
 * the move's record stood over that writer's record of the very blocks, published after it, and the writer's front
 * matter never reached this machine (convergence soak 744: the two machines' files differed for good by it).
 */
const carriedOn = (decision: BodyDecision, carriedHead: string | undefined): BodyDecision =>
  carriedHead !== undefined && splitText(decision.baseText).head === carriedHead ? { ...decision, headCarried: true } : decision;

/**
 * The first half of createDocument: the document made and recorded, its body not sent yet. `agreed`: the text
 * its first body will make it hold, announced with its ids (see announce.ts).
 */
export async function mintDocument(ctx: SyncContext, path: string, title: string, replacing?: Replacing, agreed?: string): Promise<Minted> {
  const parentId = await ensureRemoteFolder(ctx, folderOf(path, ctx.layout));
  // A kill between a create's request and the moment its id is kept loses the id: few creates at a time in that window.
  const turn = await ctx.journal.createTurn();
  try {
    // The turn may come after a stop: nothing sent yet, so nothing to finish (a stop's seconds go to the work under way).
    if (ctx.stopping()) throw new StoppedBeforeStart(path);
    return await mintInTurn(ctx, path, title, parentId, replacing, agreed, turn);
  } finally {
    turn.over();
  }
}

async function mintInTurn(
  ctx: SyncContext,
  path: string,
  title: string,
  parentId: TreeNodeId,
  replacing: Replacing | undefined,
  agreed: string | undefined,
  /** This create's turn: over once its id is kept (the ledger's commit, or without a ledger, the state's append). */
  turn: CreateTurn,
): Promise<Minted> {
  const moved = replacing && 'moved' in replacing ? replacing.moved : undefined;
  const created = await withIntent<Created | 'elsewhere'>(
    ctx,
    { kind: 'create', subject: path, payload: { title, parentId } },
    async () => {
      // A create whose answer was lost is looked for before it is tried again (once): never two documents.
      for (let attempt = 1; ; attempt += 1) {
        try {
          const made = await turn.creating(() => ctx.client.createDocument(ctx.workspaceId, { name: title, parentNodeId: parentId }));
          crashPoint('after-create');
          return { docKey: made.docKey, treeNodeId: made.treeNodeId, nodeId: made.nodeId, url: made.url, origin: 'made' };
        } catch (error) {
          if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
          const found = await findChild(ctx, parentId, title, 'FILE', path);
          if (found?.docKey) {
            // Taken by another writer, unless an earlier attempt of ours may have made it (this one's is open too).
            const taken = isConflict(error) && createAttempts(ctx.ledger, path) <= 1;
            const origin = taken ? await foundTaken(ctx, found, found.docKey, path, agreed) : 'ours';
            // Closed, not abandoned: an abandoned create of ours would make the next run take that document for its own.
            if (origin === undefined) return 'elsewhere';
            ctx.logger.info({ path }, 'found the document for %s after an uncertain create; adopting it, not creating another', path);
            return { docKey: found.docKey, treeNodeId: found.treeNodeId, nodeId: null, url: found.url, origin };
          }
          // Not there: the lost request never took effect, so it is safe to send it again.
          if (!isOutcomeUnknown(error) || attempt > 1) throw error;
        }
      }
    },
    (made) => {
      if (made === 'elsewhere') return;
      // What kbsync watch said of the moved file's links goes to its new row: the same link, still broken, in the same
      // file moved is no news (soak 745: a page's links said again at each of its moves).
      const said = moved ? ctx.ledger.noticesSaid.of(moved.path) : undefined;
      if (moved) {
        if (moved.nodeId !== null) ctx.ledger.retirements.add({ docKey: moved.docKey, nodeId: moved.nodeId, workspaceId: moved.workspaceId, path: moved.path, successor: made.docKey });
        dropRecord(ctx, moved.path, moved.docKey);
      }
      // A move's new row keeps the page it carries as its base: another writer that fills the document before our
      // first body (a follower, once we were gone two minutes) merges against that page, not against nothing (issue 44).
      recordUnpushed(ctx, { path, title, parentId, ...made, origin: LEDGER_ORIGIN[made.origin] }, [], moved?.baseMarkdown);
      if (said) ctx.ledger.noticesSaid.record(path, said);
    },
  );
  if (created === 'elsewhere') throw madeElsewhere(path);
  // A run that keeps its ledger has the id now; one without (a CI job: its ledger goes with its checkout), once it is in the state.
  turn.kept();
  // The id the service gives only now reaches the shared state before the body is sent: a run killed from
  // here on (a cancelled CI job, whose ledger is discarded) leaves a state that knows the document. One found
  // again (its id lost) is said too, with the document it replaces: a run killed before the old one is deleted
  // leaves a state from which the next run finishes the move, not one that has forgotten the old document.
  const rp = moved ? moved.docKey : replacing && 'deleted' in replacing ? replacing.deleted : undefined;
  // A first body is announced only for a document made now: one found may hold a body its own run then merges.
  const body = agreed !== undefined && created.origin === 'made' ? firstBody(ctx, agreed) : undefined;
  crashPoint('before-id-append');
  await ctx.journal.identify({ p: path, k: created.docKey, n: created.nodeId, o: LEDGER_ORIGIN[created.origin], ...(rp !== undefined ? { rp } : {}) }, body);
  return { record: ctx.ledger.documents.get(path) as DocumentRecord, origin: created.origin };
}

const LEDGER_ORIGIN = { made: 'created', ours: 'create-answer-lost', orphan: 'create-answer-lost', same: 'linked' } as const satisfies Record<Found, Origin>;

/**
 * The second half: the body sent. A document made just now is empty, so `body` (decided against an empty
 * document) stands. One found, not made, may hold a body already (an earlier attempt's push), so the body
 * is decided again against what it holds.
 */
export async function sendFirstBody(ctx: SyncContext, minted: Minted, before: TextFile, body: BodyDecision, carriedHead?: string): Promise<DocOutcome> {
  const { record, origin } = minted;
  if (origin === 'made') return applyBody(ctx, record, undefined, before, [], body);
  const remote = await ctx.client.readBlocks(record.docKey);
  const decided = decideBody({ mode: ctx.mode, force: ctx.force, webEdits: ctx.webEdits, path: record.path, record, fileText: before.text, remote, urlOf: ctx.urlOf });
  const outcome = await applyBody(ctx, record, undefined, before, remote, carriedOn(decided, carriedHead));
  return origin === 'same' ? outcome : { ...outcome, detail: [outcome.detail, idLost(record.url, origin === 'ours')].filter(Boolean).join('; ') };
}

/**
 * What a run says, once, of a document it paired with a file without the id that deletes it, found where a
 * create of the file's (`ours`: this machine's, whose answer was lost) or another run's (stopped before it kept
 * the id) had made it: kbsync cannot delete it, so a person will have to, should the file go.
 */
export const idLost = (url: string, ours: boolean): string =>
  `its document ${url} was made by ${ours ? 'an earlier create whose answer was lost' : 'a kbsync run stopped before it kept the id that deletes it (or in the web editor, empty)'}: ` +
  'kbsync keeps it in step with the file but cannot delete it, so should you delete or move the file, delete that document in the web editor';

/**
 * The row of a document whose body has not been pushed yet: no time, and an empty base, so the file counts as
 * changed; or, for a move's new document, the moved page's (`base`): with no blocks recorded, an empty document is
 * still its first push's to fill (decide/body.ts madeUnfilled), never the page deleted.
 */
export function recordUnpushed(
  ctx: SyncContext,
  doc: { path: string; title: string; parentId: TreeNodeId; docKey: DocKey; treeNodeId: TreeNodeId; nodeId: CreationNodeId | null; url: string; origin: Origin },
  remoteBlocks: readonly Block[] = [],
  base = '',
): void {
  recordAgreement(ctx, {
    path: doc.path,
    docKey: asDocKey(doc.docKey),
    nodeId: doc.nodeId,
    origin: doc.origin,
    treeNodeId: doc.treeNodeId,
    workspaceId: ctx.workspaceId,
    parentTreeNodeId: doc.parentId,
    url: doc.url,
    remoteTitle: doc.title,
    members: [],
    fileText: base,
    baseText: base,
    // The created-but-not-pushed row never passes the stat fast path.
    fingerprint: UNMATCHABLE,
    remoteBlocks,
    remoteTime: { modifiedTime: '', recheck: true },
    conflictPath: null,
  });
}

/**
 * Our create met a document of its title that this machine did not make: another writer's, made at this moment.
 * Holding this file's very text, it is taken as it is (`same`). Holding another text, the next run pairs the
 * file with it as with any document of its title (a conflict copy when the texts differ, or a push's overwrite,
 * backed up), from that writer's exact Markdown once its record is in the shared state: taken in here, from the
 * service's plain reading, it would be merged into ours and flattened (held FLATTEN for an edit nobody made).
 * Empty and made a moment ago, its first body may be on its way: the service has no conditional write, so our
 * overwrite could land just after it, and that writer's next run would take our text for an edit of its own.
 * Those two are left (undefined), nothing recorded (a move's old document stays paired with its file). Empty
 * past the minutes a first body takes, it is an `orphan`: the document a killed run of ours made, whose answer
 * went with it (a CI job's ledger goes with its checkout), or an empty page someone made, which the file fills.
 */
async function foundTaken(ctx: SyncContext, found: RemoteNode, docKey: DocKey, path: string, agreed: string | undefined): Promise<Found | undefined> {
  const blocks = await ctx.client.readBlocks(docKey);
  if (blocks.length > 0) return agreed !== undefined && agrees(pushMarkdown(splitText(agreed).body, path, ctx.urlOf), blocks) ? 'same' : undefined;
  return underAMinuteOld(found.modifiedTime, ctx.serverNow()) ? undefined : 'orphan';
}

function madeElsewhere(path: string): KbsyncError {
  return new KbsyncError(
    'REMOTE_CHANGED_DURING_WRITE',
    `"${path}": another writer created a document of its title at the same moment (it may be writing its first version now), so kbsync did not write over it. ` +
      'Nothing was lost: your version is in the file.',
    { hint: 'Sync again: the next run pairs the file with that document (a conflict copy is written if their texts differ).' },
  );
}
