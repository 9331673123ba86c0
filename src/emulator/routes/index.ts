import { blockRoutes } from './blocks.js';
import { documentRoutes } from './documents.js';
import { memberRoutes } from './members.js';
import { nodeRoutes } from './nodes.js';
import { searchRoutes } from './search.js';
import type { Route } from './types.js';
import { workspaceRoutes } from './workspaces.js';

export type RouteMatch = { readonly route: Route; readonly params: Readonly<Record<string, string>> };

type Compiled = { readonly route: Route; readonly pattern: RegExp; readonly names: readonly string[] };

const ROUTES: readonly Route[] = [...workspaceRoutes, ...nodeRoutes, ...documentRoutes, ...blockRoutes, ...memberRoutes, ...searchRoutes];

function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

const COMPILED = ROUTES.map(compile);

/** The endpoint for a method and path, or undefined (the server answers 404 InvalidAction.NotFound). */
export function matchRoute(method: string, pathname: string): RouteMatch | undefined {
  for (const { route, pattern, names } of COMPILED) {
    if (route.method !== method) continue;
    const match = pattern.exec(pathname);
    if (!match) continue;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1] ?? '')));
    } catch {
      return undefined;
    }
    return { route, params };
  }
  return undefined;
}
