import { isConflict, isOutcomeUnknown } from '../../api/index.js';
import type { DocumentRecord } from '../../ledger/index.js';
import { asDocKey, type CreationNodeId, type DocKey, type TreeNodeId } from '../../model/ids.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { folderOf } from '../placement.js';
import { withIntent } from './intent.js';
import { reconcile, type DocOutcome } from './reconcile.js';
import { recordAgreement, UNMATCHABLE } from './record.js';
import { ensureRemoteFolder, findChild } from './remote-folders.js';

type Created = { readonly docKey: DocKey; readonly treeNodeId: TreeNodeId; readonly nodeId: CreationNodeId | null; readonly url: string; readonly fresh: boolean };


/**
 * Creates the document for a local file, then pushes the body. The ledger row is written as soon as the
 * service answers, with an empty base, so a crash before the push leaves a row that the next run
 * completes: never a second document. A create whose answer was lost (reset, timeout) or that clashes
 * with a name made meanwhile is found again by listing the parent, and adopted.
 */
export async function createDocument(ctx: SyncContext, path: string, title: string): Promise<DocOutcome> {
  const parentId = await ensureRemoteFolder(ctx, folderOf(path, ctx.layout));
  const created = await withIntent<Created>(
    ctx,
    { kind: 'create', subject: path, payload: { title, parentId } },
    async () => {
      try {
        const made = await ctx.client.createDocument(ctx.workspaceId, { name: title, parentNodeId: parentId });
        crashPoint('after-create');
        return { docKey: made.docKey, treeNodeId: made.treeNodeId, nodeId: made.nodeId, url: made.url, fresh: true };
      } catch (error) {
        if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
        const found = await findChild(ctx, parentId, title, 'FILE');
        if (!found?.docKey) throw error;
        ctx.logger.info({ path }, 'found the document for %s after an uncertain create; adopting it, not creating another', path);
        return { docKey: found.docKey, treeNodeId: found.treeNodeId, nodeId: null, url: found.url, fresh: false };
      }
    },
    (made) => recordUnpushed(ctx, { path, title, parentId, ...made }),
  );
  const record = ctx.ledger.documents.get(path) as DocumentRecord;
  // A document made a moment ago is empty: no need to read it before the first push.
  return reconcile(ctx, record, undefined, created.fresh ? [] : undefined);
}

/** The row of a document whose body has not been pushed yet: empty base, so the file counts as changed. */
export function recordUnpushed(
  ctx: SyncContext,
  doc: { path: string; title: string; parentId: TreeNodeId; docKey: DocKey; treeNodeId: TreeNodeId; nodeId: CreationNodeId | null; url: string },
  remoteBlocks: readonly Block[] = [],
): void {
  recordAgreement(ctx, {
    path: doc.path,
    docKey: asDocKey(doc.docKey),
    nodeId: doc.nodeId,
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
