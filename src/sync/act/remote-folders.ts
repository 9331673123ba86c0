import { posix } from 'node:path';
import { isConflict, isOutcomeUnknown, type RemoteNode } from '../../api/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import type { SyncContext } from '../run/context.js';
import { withIntent } from './intent.js';

/**
 * The remote folder mirroring a local folder, created (with its parents) when missing. One promise per
 * folder, so that many documents created in one new folder make it exactly once.
 */
export function ensureRemoteFolder(ctx: SyncContext, folder: string): Promise<TreeNodeId> {
  if (folder === '' || ctx.layout === 'flat') return Promise.resolve(ctx.rootId);
  let pending = ctx.folderPromises.get(folder);
  if (!pending) {
    pending = resolveFolder(ctx, folder);
    ctx.folderPromises.set(folder, pending);
    // A failure must not be cached: the next document in that folder tries again.
    pending.catch(() => ctx.folderPromises.delete(folder));
  }
  return pending;
}

async function resolveFolder(ctx: SyncContext, folder: string): Promise<TreeNodeId> {
  const recorded = ctx.ledger.folders.get(folder);
  if (recorded) return recorded.treeNodeId;
  const listed = ctx.remote?.folders.find((candidate) => candidate.localPath === folder);
  if (listed) {
    ctx.ledger.folders.upsert({ path: folder, treeNodeId: listed.treeNodeId, nodeId: null, remoteTitle: listed.title });
    return listed.treeNodeId;
  }
  const parentFolder = posix.dirname(folder) === '.' ? '' : posix.dirname(folder);
  const parentId = await ensureRemoteFolder(ctx, parentFolder);
  const title = posix.basename(folder);
  return withIntent(
    ctx,
    { kind: 'create-folder', subject: folder, payload: { title, parentId } },
    async () => {
      try {
        const created = await ctx.client.createDocument(ctx.workspaceId, { name: title, parentNodeId: parentId, folder: true });
        return { treeNodeId: created.treeNodeId, nodeId: created.nodeId };
      } catch (error) {
        // Made by someone else meanwhile, or made by us with the answer lost: use that folder.
        if (!isConflict(error) && !isOutcomeUnknown(error)) throw error;
        const found = await findChild(ctx, parentId, title, 'FOLDER');
        if (!found) throw error;
        return { treeNodeId: found.treeNodeId, nodeId: null };
      }
    },
    (made) => ctx.ledger.folders.upsert({ path: folder, treeNodeId: made.treeNodeId, nodeId: made.nodeId, remoteTitle: title }),
  ).then((made) => made.treeNodeId);
}

/**
 * A child of `parentId` with this title and type that no ledger row claims yet, nor (for the document of `path`)
 * the shared state for another file: that document is another file's, whatever its title.
 */
export async function findChild(ctx: SyncContext, parentId: TreeNodeId, title: string, type: RemoteNode['type'], path?: string): Promise<RemoteNode | undefined> {
  const elsewhere = new Set<string>();
  if (type === 'FILE' && path !== undefined) for (const entry of ctx.shared?.state.entries.values() ?? []) if (entry.p !== path) elsewhere.add(entry.k);
  for await (const node of ctx.client.listNodes(parentId)) {
    if (node.type !== type || node.title !== title) continue;
    if (type === 'FILE' && node.docKey && (ctx.ledger.documents.byDocKey(node.docKey) || elsewhere.has(node.docKey))) continue;
    if (type === 'FOLDER' && ctx.ledger.folders.byTreeNodeId(node.treeNodeId)) continue;
    return node;
  }
  return undefined;
}
