import { minuteStamp } from './clock.js';
import type { Store } from './store/store.js';
import type { NodeRow, WorkspaceRow } from './store/types.js';

/** The web addresses a browser opens; the HTML view serves them. */
export const nodeUrl = (baseUrl: string, dentryUuid: string): string => `${baseUrl}/i/nodes/${encodeURIComponent(dentryUuid)}`;
export const workspaceUrl = (baseUrl: string, workspaceId: string): string => `${baseUrl}/i/spaces/${encodeURIComponent(workspaceId)}`;

const FILE_KINDS = {
  DOC: { extension: 'adoc', category: 'RICHDOC' },
  WORKBOOK: { extension: 'axls', category: 'SHEET' },
  MIND: { extension: 'amind', category: 'MIND' },
} as const;

export function workspaceView(workspace: WorkspaceRow, baseUrl: string): Record<string, unknown> {
  return {
    workspaceId: workspace.workspaceId,
    name: workspace.name,
    description: workspace.description,
    rootNodeId: workspace.rootNodeId,
    type: 'TEAM',
    url: workspaceUrl(baseUrl, workspace.workspaceId),
    createTime: minuteStamp(workspace.createdAt),
    modifiedTime: minuteStamp(workspace.modifiedAt),
  };
}

/** Node as the node endpoints show it: `nodeId` is the dentryUuid; docs carry the `.adoc` extension. */
export function nodeView(node: NodeRow, store: Store, baseUrl: string): Record<string, unknown> {
  const workspace = store.workspace(node.workspaceId);
  const isRoot = node.docType === 'ROOT';
  const kind = node.docType === 'DOC' || node.docType === 'WORKBOOK' || node.docType === 'MIND' ? FILE_KINDS[node.docType] : undefined;
  const markdown = node.docType === 'DOC' ? (store.markdown(node.dentryUuid) ?? '') : '';
  return {
    nodeId: node.dentryUuid,
    name: kind ? `${node.title}.${kind.extension}` : isRoot ? (workspace?.name ?? node.title) : node.title,
    type: kind ? 'FILE' : 'FOLDER',
    ...(kind ? { category: kind.category, extension: kind.extension } : {}),
    workspaceId: node.workspaceId,
    url: isRoot ? workspaceUrl(baseUrl, node.workspaceId) : nodeUrl(baseUrl, node.dentryUuid),
    createTime: minuteStamp(node.createdAt),
    modifiedTime: minuteStamp(node.modifiedAt),
    hasChildren: store.hasChildren(node.dentryUuid),
    size: Buffer.byteLength(markdown),
    creatorId: node.creatorId,
    modifierId: node.modifierId,
  };
}

/** Response of creation (contract 2.3): the body id twice, and the different creation nodeId. */
export function createdView(node: NodeRow, baseUrl: string): Record<string, unknown> {
  return {
    dentryUuid: node.dentryUuid,
    docKey: node.dentryUuid,
    nodeId: node.creationNodeId,
    workspaceId: node.workspaceId,
    url: nodeUrl(baseUrl, node.dentryUuid),
  };
}
