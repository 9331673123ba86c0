import type { CreationNodeId, DocKey, TreeNodeId, UserId, WorkspaceId } from '../model/ids.js';

export type Workspace = {
  readonly workspaceId: WorkspaceId;
  readonly name: string;
  readonly description: string;
  /** Parent id of the top-level nodes. */
  readonly rootNodeId: TreeNodeId;
  readonly type: string;
  readonly url: string;
  readonly createTime: string;
  readonly modifiedTime: string;
};

export type RemoteNode = {
  readonly treeNodeId: TreeNodeId;
  /** The body id: set for rich-text documents only (FILE, category RICHDOC or ALIDOC). */
  readonly docKey: DocKey | undefined;
  readonly name: string;
  /** `name` without the `.adoc` extension of rich-text documents. */
  readonly title: string;
  readonly type: 'FILE' | 'FOLDER';
  readonly category: string;
  readonly isRichDoc: boolean;
  readonly extension: string;
  readonly workspaceId: WorkspaceId;
  readonly url: string;
  /** Minute precision: never use it alone to decide that nothing changed. */
  readonly createTime: string;
  readonly modifiedTime: string;
  /** Milliseconds, only when the service sends it. */
  readonly modifiedTimestamp?: number;
  readonly hasChildren?: boolean;
};

export type NodePage = { readonly nodes: readonly RemoteNode[]; readonly nextToken: string | undefined };

export type CreatedDocument = {
  /** For body read/write. */
  readonly docKey: DocKey;
  /** The same id as a tree node (dentryUuid): use it as parentNodeId for children. */
  readonly treeNodeId: TreeNodeId;
  /** For delete and members only: never for the body. */
  readonly nodeId: CreationNodeId;
  readonly workspaceId: WorkspaceId;
  readonly url: string;
};

export type SearchHit = {
  readonly docKey: DocKey;
  readonly treeNodeId: TreeNodeId;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  readonly workspaceId: WorkspaceId;
};

export type MemberRole = 'viewer' | 'editor';
export type Member = { readonly userId: UserId; readonly role: MemberRole };

export type ReadBlocksOptions = { readonly startIndex?: number; readonly endIndex?: number; readonly blockType?: string };
