import { decodeCursor, pageSize, paginate } from '../paging.js';
import { Scope } from '../scopes.js';
import { workspaceView } from '../views.js';
import type { Route } from './types.js';

const MAX_WORKSPACES_PAGE = 30;

export const workspaceRoutes: readonly Route[] = [
  {
    name: 'listWorkspaces',
    method: 'GET',
    path: '/v2.0/wiki/workspaces',
    scopes: [Scope.wikiRead],
    operatorIn: 'query',
    handle: ({ store, query, baseUrl }) => {
      const page = paginate(store.workspaces(), decodeCursor(query.get('nextToken'), 'workspaces'), pageSize(query.get('maxResults'), MAX_WORKSPACES_PAGE));
      return { workspaces: page.items.map((w) => workspaceView(w, baseUrl)), nextToken: page.nextToken };
    },
  },
  {
    name: 'getWorkspace',
    method: 'GET',
    path: '/v2.0/wiki/workspaces/:workspaceId',
    scopes: [Scope.wikiRead],
    operatorIn: 'query',
    handle: ({ ops, params, baseUrl }) => workspaceView(ops.requireWorkspace(params['workspaceId'] ?? ''), baseUrl),
  },
];
