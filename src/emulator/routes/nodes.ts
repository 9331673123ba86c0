import { internalError, nodeNotExist, paramError } from '../errors.js';
import { decodeCursor, pageSize, paginate } from '../paging.js';
import { Scope } from '../scopes.js';
import type { NodeRow } from '../store/types.js';
import type { Store } from '../store/store.js';
import { nodeView } from '../views.js';
import { requiredQuery, requiredString } from './fields.js';
import type { Route } from './types.js';

const MAX_NODES_PAGE = 50;

/**
 * A node's or workspace's web URL → the node. Only the path counts (the host may be an alias):
 * `/i/nodes/<dentryUuid>` is that node, `/i/spaces/<workspaceId>` is the workspace's root node.
 */
function nodeOfUrl(store: Store, raw: string): NodeRow {
  let path: string;
  try {
    path = new URL(raw).pathname;
  } catch {
    throw paramError(`url '${raw}' is not an absolute URL; pass the node's web URL.`);
  }
  const match = /^\/i\/(nodes|spaces)\/([^/]+)\/?$/.exec(path);
  const id = match ? decodeURIComponent(match[2] ?? '') : '';
  const node = match?.[1] === 'spaces' ? store.node(store.workspace(id)?.rootNodeId ?? '') : store.node(id);
  if (!node) throw nodeNotExist(raw, 'No node or workspace has this URL.');
  return node;
}

export const nodeRoutes: readonly Route[] = [
  {
    name: 'listNodes',
    method: 'GET',
    path: '/v2.0/wiki/nodes',
    scopes: [Scope.wikiRead],
    operatorIn: 'query',
    handle: ({ ops, store, query, baseUrl, faults, counter }) => {
      const parent = ops.requireTreeNode(requiredQuery(query, 'parentNodeId'));
      const cursor = decodeCursor(query.get('nextToken'), `nodes:${parent.dentryUuid}`);
      if (faults.listPageFails(cursor.page)) {
        counter.fault('listNodes', 'listFailPage');
        throw internalError(`Injected fault: listing page ${cursor.page} failed; retry later.`);
      }
      const page = paginate(store.children(parent.dentryUuid), cursor, pageSize(query.get('maxResults'), MAX_NODES_PAGE));
      return { nodes: page.items.map((node) => nodeView(node, store, baseUrl)), nextToken: page.nextToken };
    },
  },
  {
    name: 'getNode',
    method: 'GET',
    path: '/v2.0/wiki/nodes/:nodeId',
    scopes: [Scope.wikiRead],
    operatorIn: 'query',
    handle: ({ ops, store, params, baseUrl }) => ({ node: nodeView(ops.requireTreeNode(params['nodeId'] ?? ''), store, baseUrl) }),
  },
  {
    name: 'queryNodeByUrl',
    method: 'POST',
    path: '/v2.0/wiki/nodes/queryByUrl',
    scopes: [Scope.wikiRead],
    operatorIn: 'query',
    handle: ({ store, body, baseUrl }) => ({ node: nodeView(nodeOfUrl(store, requiredString(body, 'url')), store, baseUrl) }),
  },
];
