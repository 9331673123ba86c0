/**
 * The service has two ids for one document, and mixing them up corrupts or loses data:
 * - `DocKey` (creation's `dentryUuid`/`docKey`, or any node id from the node endpoints / search)
 *   addresses the body (read blocks, overwrite, append);
 * - `CreationNodeId` (creation's `nodeId`) addresses delete and members, and must never reach a body call.
 * Branding makes a mix-up a compile error. Conversions exist only where the contract allows them.
 */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type DocKey = Brand<string, 'DocKey'>;
export type CreationNodeId = Brand<string, 'CreationNodeId'>;
/** A node id as returned by list/get node, queryByUrl: usable as a parent and, for documents, as a DocKey. */
export type TreeNodeId = Brand<string, 'TreeNodeId'>;
export type WorkspaceId = Brand<string, 'WorkspaceId'>;
export type BlockId = Brand<string, 'BlockId'>;
/** The user's cross-application id: the only valid operatorId. */
export type UnionId = Brand<string, 'UnionId'>;
/** The user's in-organisation id: used only for document members. */
export type UserId = Brand<string, 'UserId'>;

export const asDocKey = (id: string): DocKey => id as DocKey;
export const asCreationNodeId = (id: string): CreationNodeId => id as CreationNodeId;
export const asTreeNodeId = (id: string): TreeNodeId => id as TreeNodeId;
export const asWorkspaceId = (id: string): WorkspaceId => id as WorkspaceId;
export const asBlockId = (id: string): BlockId => id as BlockId;
export const asUnionId = (id: string): UnionId => id as UnionId;
export const asUserId = (id: string): UserId => id as UserId;

/** Contract rules 2.3 (1) and (2): a node id from the node endpoints or search is a body id. */
export const docKeyOfTreeNode = (id: TreeNodeId): DocKey => id as string as DocKey;
