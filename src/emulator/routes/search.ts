import { decodeCursor, pageSize, paginate } from '../paging.js';
import { Scope } from '../scopes.js';
import { nodeUrl } from '../views.js';
import { requiredQuery } from './fields.js';
import type { Route } from './types.js';

const MAX_SEARCH_PAGE = 50;

export const searchRoutes: readonly Route[] = [
  {
    name: 'searchDocs',
    method: 'GET',
    path: '/v1.0/doc/docs',
    scopes: [Scope.docRead],
    operatorIn: 'query',
    handle: ({ ops, store, query, baseUrl }) => {
      const workspace = ops.requireWorkspace(requiredQuery(query, 'workspaceId'));
      const keyword = requiredQuery(query, 'keyword');
      const needle = keyword.toLowerCase();
      const hits = store.nodesOf(workspace.workspaceId, ['DOC']).filter((node) => {
        const markdown = store.markdown(node.dentryUuid) ?? '';
        return node.title.toLowerCase().includes(needle) || markdown.toLowerCase().includes(needle);
      });
      const cursor = decodeCursor(query.get('nextToken'), `search:${workspace.workspaceId}:${keyword}`);
      const page = paginate(hits, cursor, pageSize(query.get('maxResults'), MAX_SEARCH_PAGE));
      return {
        docs: page.items.map((node) => ({
          nodeBO: { name: `${node.title}.adoc`, nodeId: node.dentryUuid, url: nodeUrl(baseUrl, node.dentryUuid) },
          workspaceBO: { workspaceId: workspace.workspaceId, name: workspace.name },
        })),
        hasMore: page.hasMore,
        ...(page.hasMore ? { nextToken: page.nextToken } : {}),
      };
    },
  },
];
