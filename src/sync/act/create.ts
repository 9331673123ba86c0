import { isConflict, isOutcomeUnknown } from '../../api/index.js';
import { KbsyncError } from '../../errors.js';
import type { DocumentRecord, Origin } from '../../ledger/index.js';
import type { TextFile } from '../../local/index.js';
import { asDocKey, type CreationNodeId, type DocKey, type TreeNodeId } from '../../model/ids.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import { crashPoint } from '../run/crash-points.js';
import { decideBody, type BodyDecision } from '../decide/body.js';
import { folderOf } from '../decide/placement.js';
import { applyBody, type DocOutcome } from './apply-body.js';
import { firstBody } from '../state/announce.js';
import { createAttempts, withIntent } from './intent.js';
import { dropRecord, recordAgreement, UNMATCHABLE } from './record.js';
import { ensureRemoteFolder, findChild } from './remote-folders.js';

type Created = { readonly docKey: DocKey; readonly treeNodeId: TreeNodeId; readonly nodeId: CreationNodeId | null; readonly url: string; readonly fresh: boolean; readonly taken?: boolean };

/**
 * The document a new one stands in for: one deleted in the knowledge base (a re-creation), or one deleted once
 * the new one exists (a move). The shared state is told (DocRecord `rp`), so no other machine makes a third.
 */
type Replacing = { readonly deleted: DocKey } | { readonly moved: DocumentRecord };

/**
 * A document made (or found again) for a local file, recorded in the ledger with no body agreed yet.
 * `taken`: found after the service said the title was taken, so another writer made it at this moment.
 */
type Minted = { readonly record: DocumentRecord; readonly fresh: boolean; readonly taken?: boolean };

/**
 * Creates the document for a local file, then pushes the body decided for it beforehand. The ledger row
 * is written as soon as the service answers, with an empty base, so a crash before the push leaves a row
 * that the next run completes: never a second document. A create whose answer was lost (reset, timeout)
 * or that clashes with a name made meanwhile is found again by listing the parent, and adopted.
 */
export async function createDocument(
  ctx: SyncContext,
  path: string,
  title: string,
  before: TextFile,
  body: BodyDecision,
  /** A moved document's deletion is promised in the same transaction that records this one. */
  replacing?: Replacing,
): Promise<DocOutcome> {
  return sendFirstBody(ctx, await mintDocument(ctx, path, title, replacing, body.send ? body.baseText : undefined), before, body);
}

/**
 * The first half of createDocument: the document made and recorded, its body not sent yet. `agreed`: the text
 * its first body will make it hold, announced with its ids (see announce.ts).
 */
export async function mintDocument(ctx: SyncContext, path: string, title: string, replacing?: Replacing, agreed?: string): Promise<Minted> {
  const moved = replacing && 'moved' in replacing ? replacing.moved : undefined;
  const parentId = await ensureRemoteFolder(ctx, folderOf(path, ctx.layout));
  const created = await withIntent<Created>(
    ctx,
    { kind: 'create', subject: path, payload: { title, parentId } },
    async () => {
      // A create whose answer was lost is looked for before it is tried again (once): never two documents.
      for (let attempt = 1; ; attempt += 1) {
        try {
          const made = await ctx.journal.creating(() => ctx.client.createDocument(ctx.workspaceId, { name: title, parentNodeId: parentId }));
          crashPoint('after-create');
          return { docKey: made.docKey, treeNodeId: made.treeNodeId, nodeId: made.nodeId, url: made.url, fresh: true };
        } catch (error) {
          if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
          const found = await findChild(ctx, parentId, title, 'FILE');
          if (found?.docKey) {
            ctx.logger.info({ path }, 'found the document for %s after an uncertain create; adopting it, not creating another', path);
            // Taken by another writer, unless an earlier attempt of ours may have made it (this one's is open too).
            const taken = isConflict(error) && createAttempts(ctx.ledger, path) <= 1;
            return { docKey: found.docKey, treeNodeId: found.treeNodeId, nodeId: null, url: found.url, fresh: false, ...(taken ? { taken } : {}) };
          }
          // Not there: the lost request never took effect, so it is safe to send it again.
          if (!isOutcomeUnknown(error) || attempt > 1) throw error;
        }
      }
    },
    (made) => {
      if (moved) {
        if (moved.nodeId !== null) ctx.ledger.retirements.add({ docKey: moved.docKey, nodeId: moved.nodeId, workspaceId: moved.workspaceId, path: moved.path });
        dropRecord(ctx, moved.path, moved.docKey);
      }
      recordUnpushed(ctx, { path, title, parentId, ...made, origin: made.fresh ? 'created' : 'create-answer-lost' });
    },
  );
  // The id the service gives only now reaches the shared state before the body is sent: a run killed from
  // here on (a cancelled CI job, whose ledger is discarded) leaves a state that knows the document.
  const rp = moved ? moved.docKey : replacing && 'deleted' in replacing ? replacing.deleted : undefined;
  const body = agreed !== undefined ? firstBody(ctx, agreed) : undefined;
  crashPoint('before-id-append');
  if (created.nodeId !== null) await ctx.journal.identify({ p: path, k: created.docKey, n: created.nodeId, o: 'created', ...(rp !== undefined ? { rp } : {}) }, body);
  return { record: ctx.ledger.documents.get(path) as DocumentRecord, fresh: created.fresh, ...(created.taken ? { taken: true } : {}) };
}

/**
 * The second half: the body sent. A document made just now is empty, so `body` (decided against an empty
 * document) stands. One found, not made, may hold a body already (an earlier attempt's push), so the body
 * is decided again against what it holds.
 */
export async function sendFirstBody(ctx: SyncContext, minted: Minted, before: TextFile, body: BodyDecision): Promise<DocOutcome> {
  const { record } = minted;
  if (minted.fresh) return applyBody(ctx, record, undefined, before, [], body);
  const remote = await ctx.client.readBlocks(record.docKey);
  // Another writer made this document a moment ago (our create met its title), and still empty it is about
  // to get that writer's first body: the service has no conditional write, so our overwrite could land just
  // after it, and that writer's next run would take our text for an edit of its own and pull it over its
  // file (its words then only in a backup). Left for the next run, which finds their body and merges.
  if (minted.taken && remote.length === 0) throw madeElsewhere(record.path);
  return applyBody(ctx, record, undefined, before, remote, decideBody({ mode: ctx.mode, force: ctx.force, webEdits: ctx.webEdits, path: record.path, record, fileText: before.text, remote, urlOf: ctx.urlOf }));
}

/** The row of a document whose body has not been pushed yet: empty base, so the file counts as changed. */
export function recordUnpushed(
  ctx: SyncContext,
  doc: { path: string; title: string; parentId: TreeNodeId; docKey: DocKey; treeNodeId: TreeNodeId; nodeId: CreationNodeId | null; url: string; origin: Origin },
  remoteBlocks: readonly Block[] = [],
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
    fileText: '',
    baseText: '',
    // The created-but-not-pushed row never passes the stat fast path.
    fingerprint: UNMATCHABLE,
    remoteBlocks,
    remoteTime: { modifiedTime: '', recheck: true },
    conflictPath: null,
  });
}

function madeElsewhere(path: string): KbsyncError {
  return new KbsyncError(
    'REMOTE_CHANGED_DURING_WRITE',
    `"${path}": another writer created its document at the same moment, and may be writing its first version now, so kbsync did not write over it. ` +
      'Nothing was lost: your version is in the file.',
    { hint: 'Sync again: the next run merges both versions (a conflict copy is written if they clash).' },
  );
}
