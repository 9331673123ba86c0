import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cycles, importGraph, reachable, type Edge } from '../helpers/import-graph.js';

/**
 * The dependency rules of ../shared/DESIGN.md, checked on the real import graph: a change that crosses a
 * boundary fails here, not in review.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const graph = importGraph(root);
const inside = (dir: string) => (path: string): boolean => path.startsWith(`src/${dir}/`);
const violations = (from: (path: string) => boolean, forbidden: (edge: Edge) => boolean): string[] =>
  [...graph].flatMap(([file, edges]) => (from(file) ? edges.filter(forbidden).map((edge) => `${file} → ${edge.target}${edge.typeOnly ? ' (type)' : ''}`) : []));

const IO_MODULES = new Set(['node:fs', 'node:fs/promises', 'node:child_process', 'node:http', 'node:https', 'node:net', 'better-sqlite3', 'got']);

describe('module boundaries (DESIGN.md)', () => {
  test('the ledger and the API client never import each other', () => {
    assert.deepEqual(violations(inside('ledger'), (e) => inside('api')(e.target)), []);
    assert.deepEqual(violations(inside('api'), (e) => inside('ledger')(e.target)), []);
  });

  test('the decision imports no I/O: no file system, network, SQLite, and nothing from the modules that do it (types aside)', () => {
    const ioDirs = ['api', 'ledger', 'local', 'queue', 'emulator', 'daemon', 'cli', 'setup', 'config'].map(inside);
    const decisionFiles = (path: string): boolean => inside('sync/decide')(path);
    const direct = violations(decisionFiles, (e) => IO_MODULES.has(e.target) || (!e.typeOnly && ioDirs.some((inDir) => inDir(e.target))));
    assert.deepEqual(direct, []);
    // Transitively too: whatever the decision loads at run time stays free of I/O.
    const loaded = new Set([...graph.keys()].filter(decisionFiles).flatMap((file) => [...reachable(graph, file)]));
    const io = [...loaded].flatMap((file) => (graph.get(file) ?? []).filter((e) => !e.typeOnly && IO_MODULES.has(e.target)).map((e) => `${file} → ${e.target}`));
    assert.deepEqual(io, []);
  });

  test('the engine and the daemon never load the emulator', () => {
    for (const start of ['src/sync/engine.ts', 'src/daemon/index.ts', 'src/index.ts']) {
      const loaded = [...reachable(graph, start)].filter(inside('emulator'));
      assert.deepEqual(loaded, [], `${start} loads the emulator`);
    }
  });

  test('the Markdown layer and the emulator stand alone: neither imports the sync engine, the ledger or the local file layer', () => {
    const engine = (e: Edge): boolean => ['sync', 'ledger', 'local', 'daemon', 'cli', 'api'].some((dir) => inside(dir)(e.target));
    assert.deepEqual(violations(inside('markdown'), engine), []);
    assert.deepEqual(violations(inside('emulator'), engine), []);
  });

  test('only the entry ends the process: process.exit is called in src/cli/main.ts alone, and commands and the daemon return, throw or call the exit it hands them', () => {
    const exits = [...graph.keys(), 'bin/kbsync.js'].flatMap((file) =>
      readFileSync(`${root}/${file}`, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bprocess\.exit\s*\(/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    assert.deepEqual(
      exits.map((at) => at.replace(/:\d+$/, '')),
      ['src/cli/main.ts'],
      `process.exit at ${exits.join(', ')}`,
    );
  });

  test("a command reads its environment, folder and streams from its invocation, never from the process's own", () => {
    // A command run in a test's process (test/helpers/cli.ts) must see what a child process would have:
    // code that read process.env or the process's folder would see the test's instead, and its output
    // would escape the test. These are the exceptions: the process's own invocation, the entry, the
    // launcher, knobs read once at load (tests run those in a process), the home folder's fallback (the
    // system's record, when HOME is unset), and the emulator (not a command).
    const allowed = ['src/invocation.ts', 'src/cli/main.ts', 'src/cli/code-cache.ts', 'src/sync/run/crash-points.ts', 'src/remote-state/documents.ts', 'src/remote-state/limits.ts', 'src/config/home.ts'];
    const direct = /\bprocess\.(env|cwd|stdin|stdout|stderr|exitCode)\b|\bconsole\.\w+\(|\bhomedir\(\)/;
    // A path a person typed is relative to their folder: resolved from one argument, it would be the process's.
    const typedPath = /\bpath\.resolve\([^,()]*\)/;
    const found = [...graph.keys()]
      .filter((file) => !allowed.includes(file) && !inside('emulator')(file))
      .flatMap((file) =>
        readFileSync(`${root}/${file}`, 'utf8')
          .split('\n')
          .flatMap((line, i) => {
            const code = !/^\s*(\/\/|\*|\/\*\*)/.test(line);
            const bad = direct.test(line) || ((inside('cli')(file) || inside('shell')(file)) && typedPath.test(line));
            return code && bad ? [`${file}:${i + 1}: ${line.trim()}`] : [];
          }),
      );
    assert.deepEqual(found, []);
  });

  test('no import cycles anywhere in src/', () => {
    assert.deepEqual(cycles(graph), []);
  });

  test('package.json declares exactly the packages src/ imports at run time (and no source file imports a dev dependency)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const imported = new Set(
      [...graph.values()].flatMap((edges) => edges.filter((e) => !e.typeOnly && !e.target.startsWith('src/') && !e.target.startsWith('node:')).map((e) => e.target)),
    );
    // Named by string, not imported: pino loads its pretty-printer transport by package name.
    imported.add('pino-pretty');
    assert.deepEqual([...imported].sort(), Object.keys(pkg.dependencies).sort());
  });
});
