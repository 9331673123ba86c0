import { oneLine } from '../printable.js';

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

/** Longest id kbsync puts into a URL: the service's are a few dozen characters. */
const MAX_URL_ID = 256;
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `id` cannot be one segment of a URL path, or undefined when it can. Ids are opaque strings that go
 * into paths (`/v1.0/doc/suites/documents/{docKey}/blocks`): a dot segment is resolved away with the segment
 * before it, and a separator (or one percent-encoded, which a server may decode) splits the segment; either
 * sends the request to another endpoint. So every id from outside (the service's answers, the shared state,
 * the config) is checked by this where it comes in, and again where a URL is made.
 */
export function urlIdProblem(id: string): string | undefined {
  if (id === '') return 'it is empty';
  if (id === '.' || id === '..') return 'it is a dot segment, which a URL resolves to another path';
  if (/[/\\?#]/.test(id)) return 'it holds a "/", "\\", "?" or "#", which would end the segment';
  if (/%[0-9a-f]{2}/i.test(id)) return 'it holds a percent-encoded character, which a server may decode into a separator';
  if (CONTROL.test(id)) return 'it holds a control character';
  if (id.length > MAX_URL_ID) return `it is longer than ${MAX_URL_ID} characters`;
  return undefined;
}

/** What is said of a refused id: the id (quoted, escaped, cut) and why. */
export const urlIdRefusal = (id: string, problem: string): string => `the id ${oneLine(JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id))} cannot be one segment of a URL path: ${problem}`;
