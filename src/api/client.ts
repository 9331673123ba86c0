import { InputError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import type { BlockId, CreationNodeId, DocKey, TreeNodeId, UnionId, UserId, WorkspaceId } from '../model/ids.js';
import { asCreationNodeId, asDocKey, asTreeNodeId, asWorkspaceId, urlIdProblem, urlIdRefusal } from '../model/ids.js';
import type { Block } from '../model/blocks.js';
import { RequestQueue } from '../queue/request-queue.js';
import { parseBlock } from './blocks.js';
import { Caller, DEFAULT_RETRY, type CallSpec, type RetryPolicy } from './caller.js';
import type { Endpoint } from './endpoints.js';
import { ApiError, incompletePaging } from './errors.js';
import { titleOf, toRemoteNode, toWorkspace } from './nodes.js';
import { moreToken, walkPages } from './paging.js';
import * as schema from './schemas.js';
import type { TokenSource } from './token.js';
import { Transport } from './transport.js';
import type { CreatedDocument, Member, MemberRole, NodePage, ReadBlocksOptions, RemoteNode, SearchHit, Workspace } from './types.js';

export type KbClientOptions = {
  /** The API's base address, without /v1.0 or /v2.0. */
  readonly baseUrl: string;
  /** Header carrying the token. Default `x-acs-service-access-token`. */
  readonly tokenHeader?: string;
  readonly token: TokenSource;
  /** The user's unionId (never the userId). */
  readonly operatorId: UnionId;
  /** Shared with other clients to pace them together; a private one (20/s per endpoint) otherwise. */
  readonly queue?: RequestQueue;
  /** Per attempt. Default 30 s. */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * This machine's clock (ms), on which serverTime() counts the time since the service's latest answer. Default:
   * Date.now. A test whose service clock stands still gives one that stands still with it (test/model/world.ts):
   * read on the real clock, a busy machine's seconds would pass in a service minute that does not move.
   */
  readonly localNow?: () => number;
};

/** Largest body overwriteContent accepts (real-service-notes). */
const MAX_OVERWRITE_CHARS = 50_000;
const NODE_PAGE_MAX = 50;
const WORKSPACE_PAGE_MAX = 30;

/** The typed client of the knowledge-base service: one method per endpoint, answers normalised. */
export class KbClient {
  readonly #caller: Caller;
  readonly #operatorId: UnionId;

  constructor(options: KbClientOptions) {
    validate(options);
    this.#operatorId = options.operatorId;
    this.#caller = new Caller({
        transport: new Transport({ baseUrl: options.baseUrl, tokenHeader: options.tokenHeader ?? 'x-acs-service-access-token', timeoutMs: options.timeoutMs ?? 30_000 }),
        token: options.token,
        queue: options.queue ?? new RequestQueue(),
        retry: { ...DEFAULT_RETRY, ...options.retry },
        logger: options.logger ?? silentLogger,
        ...(options.localNow ? { localNow: options.localNow } : {}),
      });
  }

  /** The queue every call of this client goes through: `stats()` for accounting, `drain()` on shutdown. */
  get queue(): RequestQueue {
    return this.#caller.queue;
  }

  /**
   * The service's current time, estimated (±1 s) from the Date header of its latest answer; undefined
   * before the first answer. For comparing with the service's minute-precision timestamps.
   */
  serverTime(): Date | undefined {
    return this.#caller.serverTime();
  }

  listWorkspaces(): AsyncIterable<Workspace> {
    return walkPages('listWorkspaces', async (nextToken) => {
      const page = await this.#call({ endpoint: 'listWorkspaces', method: 'GET', path: '/v2.0/wiki/workspaces', query: { maxResults: WORKSPACE_PAGE_MAX, nextToken }, schema: schema.workspacePageSchema });
      return { items: page.workspaces.map(toWorkspace), nextToken: moreToken(page.nextToken) };
    });
  }

  async getWorkspace(workspaceId: WorkspaceId): Promise<Workspace> {
    return toWorkspace(await this.#call({ endpoint: 'getWorkspace', method: 'GET', path: `/v2.0/wiki/workspaces/${segment('getWorkspace', 'workspaceId', workspaceId)}`, query: {}, schema: schema.workspaceSchema }));
  }

  /** Every child of `parent`, page by page (50 per call by default: calls are scarce). */
  listNodes(parent: TreeNodeId, options: { pageSize?: number } = {}): AsyncIterable<RemoteNode> {
    return walkPages('listNodes', async (nextToken) => {
      const page = await this.listNodesPage(parent, nextToken, options);
      return { items: page.nodes, nextToken: page.nextToken };
    });
  }

  /** One page of `parent`'s children; `nextToken` undefined on the last page. */
  async listNodesPage(parent: TreeNodeId, nextToken: string | undefined, options: { pageSize?: number } = {}): Promise<NodePage> {
    const maxResults = Math.min(NODE_PAGE_MAX, Math.max(1, Math.floor(options.pageSize ?? NODE_PAGE_MAX)));
    const page = await this.#call({ endpoint: 'listNodes', method: 'GET', path: '/v2.0/wiki/nodes', query: { parentNodeId: parent, maxResults, nextToken }, schema: schema.nodePageSchema });
    return { nodes: page.nodes.map(toRemoteNode), nextToken: moreToken(page.nextToken) };
  }

  async getNode(id: TreeNodeId): Promise<RemoteNode> {
    const answer = await this.#call({ endpoint: 'getNode', method: 'GET', path: `/v2.0/wiki/nodes/${segment('getNode', 'nodeId', id)}`, query: {}, schema: schema.singleNodeSchema });
    return toRemoteNode(answer.node);
  }

  async getNodeByUrl(url: string): Promise<RemoteNode> {
    const answer = await this.#call({ endpoint: 'queryNodeByUrl', method: 'POST', path: '/v2.0/wiki/nodes/queryByUrl', query: {}, body: { url }, schema: schema.singleNodeSchema });
    return toRemoteNode(answer.node);
  }

  /** Not repeatable: an ambiguous failure is an OutcomeUnknownError, never a second document. */
  async createDocument(workspaceId: WorkspaceId, document: { name: string; parentNodeId?: TreeNodeId; folder?: boolean }): Promise<CreatedDocument> {
    const body = { docType: document.folder ? 'FOLDER' : 'DOC', name: document.name, ...(document.parentNodeId ? { parentNodeId: document.parentNodeId } : {}) };
    const created = await this.#call({ endpoint: 'createDocument', method: 'POST', path: `/v1.0/doc/workspaces/${segment('createDocument', 'workspaceId', workspaceId)}/docs`, query: {}, body, schema: schema.createdSchema });
    const bodyId = created.docKey ?? created.dentryUuid ?? '';
    return {
      docKey: asDocKey(bodyId),
      treeNodeId: asTreeNodeId(created.dentryUuid ?? bodyId),
      nodeId: asCreationNodeId(created.nodeId),
      workspaceId: asWorkspaceId(created.workspaceId),
      url: created.url,
    };
  }

  /** Deletes by the creation nodeId. A "not found" answer to a retry means the first attempt did it. */
  async deleteDocument(workspaceId: WorkspaceId, nodeId: CreationNodeId): Promise<void> {
    await this.#call({ endpoint: 'deleteDocument', method: 'DELETE', path: `/v1.0/doc/workspaces/${segment('deleteDocument', 'workspaceId', workspaceId)}/docs/${segment('deleteDocument', 'nodeId', nodeId)}`, query: {}, schema: schema.anySchema, goneOnRetry: () => undefined });
  }

  async readBlocks(docKey: DocKey, options: ReadBlocksOptions = {}): Promise<Block[]> {
    const { startIndex, endIndex, blockType } = options;
    const answer = await this.#call({ endpoint: 'readBlocks', method: 'GET', path: `/v1.0/doc/suites/documents/${segment('readBlocks', 'docKey', docKey)}/blocks`, query: { startIndex, endIndex, blockType }, schema: schema.blocksSchema });
    return answer.result.data.map(parseBlock);
  }

  /** Replaces the whole body (irreversible): the caller checks and backs up the remote body first. */
  async overwrite(docKey: DocKey, markdown: string): Promise<void> {
    if (markdown.length > MAX_OVERWRITE_CHARS) {
      throw new ApiError('API_TOO_LARGE', `The document body has ${markdown.length} characters; the service accepts at most ${MAX_OVERWRITE_CHARS}.`, { endpoint: 'overwriteContent' }, {
        hint: 'Split the file into several documents; it was not sent.',
      });
    }
    // contentType is the contract's name, dataType the SDK's: sending both is harmless.
    const body = { content: markdown, contentType: 'markdown', dataType: 'markdown' };
    await this.#call({ endpoint: 'overwriteContent', method: 'POST', path: `/v1.0/doc/suites/documents/${segment('overwriteContent', 'docKey', docKey)}/overwriteContent`, query: {}, body, schema: schema.anySchema });
  }

  /** Appends to a paragraph. Returns the paragraph's whole text when the service sends it. Not repeatable. */
  async appendText(docKey: DocKey, blockId: BlockId, text: string): Promise<string | undefined> {
    const path = `/v1.0/doc/suites/documents/${segment('appendText', 'docKey', docKey)}/blocks/${segment('appendText', 'blockId', blockId)}/paragraph/appendText`;
    const answer = await this.#call({ endpoint: 'appendText', method: 'POST', path, query: {}, body: { text }, schema: schema.appendSchema });
    return answer.result?.data?.text;
  }

  /** Not repeatable. `userId` is the in-organisation id, the one place it is used instead of the unionId. */
  async addMembers(workspaceId: WorkspaceId, nodeId: CreationNodeId, members: readonly Member[]): Promise<void> {
    const body = { members: members.map((m) => ({ id: m.userId, roleType: m.role })) };
    await this.#call({ endpoint: 'addMembers', method: 'POST', path: membersPath('addMembers', workspaceId, nodeId), query: {}, body, schema: schema.anySchema });
  }

  async updateMember(workspaceId: WorkspaceId, nodeId: CreationNodeId, userId: UserId, role: MemberRole): Promise<void> {
    await this.#call({ endpoint: 'updateMember', method: 'PUT', path: `${membersPath('updateMember', workspaceId, nodeId)}/${segment('updateMember', 'userId', userId)}`, query: {}, body: { roleType: role }, schema: schema.anySchema });
  }

  async removeMember(workspaceId: WorkspaceId, nodeId: CreationNodeId, userId: UserId): Promise<void> {
    await this.#call({ endpoint: 'removeMember', method: 'DELETE', path: `${membersPath('removeMember', workspaceId, nodeId)}/${segment('removeMember', 'userId', userId)}`, query: {}, schema: schema.anySchema });
  }

  /** Documents of one knowledge base matching `keyword`: how a create whose answer was lost is found again. */
  search(workspaceId: WorkspaceId, keyword: string): AsyncIterable<SearchHit> {
    return walkPages('searchDocs', async (nextToken) => {
      const page = await this.#call({ endpoint: 'searchDocs', method: 'GET', path: '/v1.0/doc/docs', query: { workspaceId, keyword, maxResults: NODE_PAGE_MAX, nextToken }, schema: schema.searchPageSchema });
      const items = page.docs.map(({ nodeBO, workspaceBO }): SearchHit => ({
        docKey: asDocKey(nodeBO.nodeId),
        treeNodeId: asTreeNodeId(nodeBO.nodeId),
        name: nodeBO.name,
        title: titleOf(nodeBO.name),
        url: nodeBO.url,
        workspaceId: asWorkspaceId(workspaceBO?.workspaceId ?? workspaceId),
      }));
      const next = page.hasMore === false ? undefined : moreToken(page.nextToken);
      // Search is how a lost create is found again: a silently partial result could cause a duplicate.
      if (page.hasMore === true && next === undefined) throw incompletePaging('searchDocs');
      return { items, nextToken: next };
    });
  }

  /** operatorId goes in the query of every call and in the body of every call that has one (the contract asks both for overwrite). */
  #call<T>(spec: CallSpec<T>): Promise<T> {
    const operatorId = this.#operatorId;
    const withOperator = { ...spec, query: { operatorId, ...spec.query }, body: spec.body === undefined ? undefined : { operatorId, ...spec.body } };
    return this.#caller.request(withOperator);
  }
}

const membersPath = (endpoint: Endpoint, workspaceId: WorkspaceId, nodeId: CreationNodeId): string =>
  `/v1.0/doc/workspaces/${segment(endpoint, 'workspaceId', workspaceId)}/docs/${segment(endpoint, 'nodeId', nodeId)}/members`;

/**
 * An id as one segment of a URL path, encoded. The last of its checks (model/ids.ts): ids are checked where
 * they come in, so one refused here got past them (kept by an older kbsync); the call is not made.
 */
function segment(endpoint: Endpoint, name: string, id: string): string {
  const problem = urlIdProblem(id);
  if (problem) {
    throw new ApiError('API_UNSAFE_ID', `kbsync did not call ${endpoint}: ${urlIdRefusal(id, problem)} (the ${name}), and sent, it would address another endpoint.`, { endpoint }, {
      hint: 'The id was not sent anywhere. It came from this machine\'s ledger, kept by an older kbsync: move the ledger (.kbsync/ledger.sqlite) aside and sync again (documents are re-adopted, none made twice), or report it.',
    });
  }
  return encodeURIComponent(id);
}

function validate(options: KbClientOptions): void {
  let url: URL | undefined;
  try {
    url = new URL(options.baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new InputError('INVALID_BASE_URL', `baseUrl must be an http(s) URL, got '${options.baseUrl}'.`, { hint: 'Set baseUrl to the API base address, for example https://api.example.com.' });
  }
  if (typeof options.operatorId !== 'string' || options.operatorId.trim() === '') {
    throw new InputError('INVALID_OPERATOR_ID', 'operatorId is empty.', { hint: "Set operatorId to the user's unionId (not the userId)." });
  }
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new InputError('INVALID_TIMEOUT', `timeoutMs must be a positive number of milliseconds, got ${String(options.timeoutMs)}.`);
  }
}
