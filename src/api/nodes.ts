import { asTreeNodeId, asWorkspaceId, docKeyOfTreeNode } from '../model/ids.js';
import type { NodeJson } from './schemas.js';
import type { RemoteNode, Workspace } from './types.js';
import type * as z from 'zod/mini';
import type { workspaceSchema } from './schemas.js';

// The contract writes RICHDOC; the real service says ALIDOC (real-service-notes). Accept both.
const RICH_DOC_CATEGORIES = new Set(['RICHDOC', 'ALIDOC']);

/** A rich-text document's name carries the `.adoc` extension; its title is the name without it. */
export const titleOf = (name: string): string => name.replace(/\.adoc$/i, '');

export function toRemoteNode(json: NodeJson): RemoteNode {
  const treeNodeId = asTreeNodeId(json.nodeId);
  const isRichDoc = RICH_DOC_CATEGORIES.has(json.category.toUpperCase());
  return {
    treeNodeId,
    docKey: json.type === 'FILE' && isRichDoc ? docKeyOfTreeNode(treeNodeId) : undefined,
    name: json.name,
    title: isRichDoc ? titleOf(json.name) : json.name,
    type: json.type,
    category: json.category,
    isRichDoc,
    extension: json.extension,
    workspaceId: asWorkspaceId(json.workspaceId),
    url: json.url,
    createTime: json.createTime,
    modifiedTime: json.modifiedTime,
    ...(json.modifiedTimestamp === undefined ? {} : { modifiedTimestamp: json.modifiedTimestamp }),
    ...(json.hasChildren === undefined ? {} : { hasChildren: json.hasChildren }),
  };
}

export function toWorkspace(json: z.infer<typeof workspaceSchema>): Workspace {
  return {
    workspaceId: asWorkspaceId(json.workspaceId),
    name: json.name,
    description: json.description,
    rootNodeId: asTreeNodeId(json.rootNodeId),
    type: json.type,
    url: json.url,
    createTime: json.createTime,
    modifiedTime: json.modifiedTime,
  };
}
