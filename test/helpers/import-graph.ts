import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import of a module: where it points (a `src/...` path or a package name) and whether it is type-only. */
export type Edge = { readonly target: string; readonly typeOnly: boolean };

/** Every `.ts` module under `dir` (relative to `root`) with its static and dynamic imports and re-exports. */
export function importGraph(root: string, dir = 'src'): Map<string, Edge[]> {
  const files: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(join(root, at))) {
      const rel = join(at, name);
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (rel.endsWith('.ts')) files.push(rel);
    }
  };
  walk(dir);
  const graph = new Map<string, Edge[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const edges: Edge[] = [];
    const add = (specifier: string, typeOnly: boolean): void => {
      const target = specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier.replace(/\.js$/, '.ts'))) : packageOf(specifier);
      edges.push({ target, typeOnly });
    };
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm)) add(m[2] as string, m[1] !== undefined);
    // Lazy loads: import('x') and createRequire's require('x').
    for (const m of text.matchAll(/(?:\bimport|\brequire|createRequire\([^)]*\))\(\s*'([^']+)'\s*\)/g)) add(m[1] as string, false);
    graph.set(file, edges);
  }
  return graph;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; `node:fs` stays. */
const packageOf = (specifier: string): string => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string));

/** Modules reachable from `start` through runtime imports. */
export function reachable(graph: ReadonlyMap<string, readonly Edge[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const edge of graph.get(file) ?? []) if (!edge.typeOnly && graph.has(edge.target)) visit(edge.target);
  };
  visit(start);
  return seen;
}

/** Import cycles (strongly connected groups of more than one module, or a module importing itself). */
export function cycles(graph: ReadonlyMap<string, readonly Edge[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const { target: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).some((edge) => edge.target === v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}
