import { posix } from 'node:path';
import { TreeBounds, type KbClient, type RemoteNode } from '../../api/index.js';
import type { DocKey, TreeNodeId } from '../../model/ids.js';
import { fileNameForTitle, safeName } from '../../local/index.js';
import { STATE_FOLDER } from '../../remote-state/store.js';
import type { Layout, RemoteDoc, RemoteFolder, RemoteSnapshot } from '../decide/types.js';

type KnownPaths = {
  /** Ledger: document → the local path it is synced with (authoritative over titles). */
  readonly docPaths: ReadonlyMap<DocKey, string>;
  /** Ledger: remote folder → the local folder it mirrors. */
  readonly folderPaths: ReadonlyMap<TreeNodeId, string>;
};

/**
 * Lists the whole remote tree under `rootId`, every page of every folder, and maps each node to a
 * local path. Any failure rejects: a partial listing must never become a snapshot, because the
 * planner would read every document it missed as deleted (design rule 4). So does a tree past its bounds
 * (a folder inside itself, nesting or size without end: TreeBounds).
 */
export async function observeRemote(client: KbClient, rootId: TreeNodeId, layout: Layout, known: KnownPaths, onFolderListed?: (listed: number) => void): Promise<RemoteSnapshot> {
  const docs = new Map<DocKey, RemoteDoc>();
  const folders: RemoteFolder[] = [];
  let state: RemoteSnapshot['state'];
  let listed = 0;
  const bounds = new TreeBounds(rootId);

  async function walk(parentId: TreeNodeId, parentPath: string, depth: number): Promise<void> {
    const children: RemoteNode[] = [];
    for await (const node of client.listNodes(parentId)) {
      bounds.counted();
      children.push(node);
    }
    onFolderListed?.((listed += 1));
    const listedAt = client.serverTime()?.getTime();
    const names = new Set<string>();
    const descend: Promise<void>[] = [];
    for (const node of children) {
      // kbsync's own state documents are not the user's: found for the state store (which lists them only
      // when a run needs the state), never synced as files.
      if (parentPath === '' && node.type === 'FOLDER' && node.title === STATE_FOLDER) {
        state = { folderId: node.treeNodeId };
        continue;
      }
      if (node.type === 'FOLDER' || node.hasChildren) {
        const recorded = known.folderPaths.get(node.treeNodeId);
        const folderPath = recorded ?? join(parentPath, safeName(node.title, { siblings: names }));
        names.add(posix.basename(folderPath));
        if (node.type === 'FOLDER') folders.push({ treeNodeId: node.treeNodeId, parentTreeNodeId: parentId, title: node.title, localPath: folderPath });
        bounds.enter(node.treeNodeId, node.title, depth + 1);
        descend.push(walk(node.treeNodeId, folderPath, depth + 1));
      }
      if (node.type !== 'FILE' || !node.isRichDoc || !node.docKey) continue;
      const recorded = known.docPaths.get(node.docKey);
      const localPath = recorded ?? join(parentPath, fileNameFor(node.title, layout, names));
      names.add(posix.basename(localPath));
      docs.set(node.docKey, {
        docKey: node.docKey,
        treeNodeId: node.treeNodeId,
        parentTreeNodeId: parentId,
        title: node.title,
        url: node.url,
        modifiedTime: node.modifiedTime,
        localPath,
        ...(listedAt !== undefined ? { listedAt } : {}),
      });
    }
    await Promise.all(descend);
  }

  await walk(rootId, '', 0);
  return { rootId, docs, folders, ...(state ? { state } : {}) };
}

/** In a flat knowledge base a title is a relative path (`guides/setup`): each part becomes one safe name. */
function fileNameFor(title: string, layout: Layout, siblings: ReadonlySet<string>): string {
  if (layout === 'folders') return fileNameForTitle(title, siblings);
  const parts = title.split('/').filter((part) => part.length > 0);
  const last = parts.pop() ?? title;
  const dirs = parts.map((part) => safeName(part, { siblings: new Set() }));
  return [...dirs, fileNameForTitle(last, dirs.length > 0 ? new Set() : siblings)].join('/');
}

const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
