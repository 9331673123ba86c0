/** Stored rows, named as the rest of the emulator speaks of them. */

/** `ROOT` is a workspace's top node; WORKBOOK and MIND are plain files without a body. */
export type DocType = 'ROOT' | 'DOC' | 'FOLDER' | 'WORKBOOK' | 'MIND';

export type UserRow = { readonly unionId: string; readonly userId: string; readonly name: string };

export type WorkspaceRow = {
  readonly seq: number;
  readonly workspaceId: string;
  readonly name: string;
  readonly description: string;
  readonly rootNodeId: string;
  readonly createdAt: number;
  readonly modifiedAt: number;
};

export type NodeRow = {
  readonly seq: number;
  /** The id the node endpoints and search show as `nodeId`, and the body id (`docKey`). */
  readonly dentryUuid: string;
  /** The creation response's `nodeId`: only for delete and members. */
  readonly creationNodeId: string;
  readonly workspaceId: string;
  readonly parentId: string | null;
  readonly title: string;
  readonly docType: DocType;
  readonly creatorId: string;
  readonly modifierId: string;
  readonly createdAt: number;
  readonly modifiedAt: number;
};

/** A block as the service shows it: `id`, `index`, `blockType` and one object named after the type. */
export type ServiceBlock = {
  readonly id: string;
  readonly index: number;
  readonly blockType: string;
  readonly [kind: string]: unknown;
};

/** A block plus where its source ends in the stored Markdown (paragraphs only: appendText writes there). */
/**
 * `hidden`: the Markdown of a block whose content the service does not show (code, a table, HTML): never served,
 * only kept so that the web editor, which knows which block it changed, keeps the ids of the others.
 */
export type StoredBlock = { readonly block: ServiceBlock; readonly sourceEnd?: number; readonly hidden?: string };

export type BodyRow = { readonly markdown: string; readonly blocks: readonly StoredBlock[] };

export type MemberRow = { readonly dentryUuid: string; readonly userId: string; readonly roleType: string };
