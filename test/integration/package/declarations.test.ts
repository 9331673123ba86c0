import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The published declaration files work for a user who installed kbsync and nothing else: every package they
 * import is one of kbsync's `dependencies` that brings its own types (or whose `@types/` package is a
 * dependency too), so they type-check without kbsync's devDependencies. Reads the dist/ that `npm test`
 * has just built.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
type Manifest = { dependencies: Record<string, string>; types: string; exports: Record<string, string | { types?: string }> };
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Manifest;
const dependencies = new Set(Object.keys(pkg.dependencies));

/** The declaration entries a user's compiler starts from: `types` and each export's `types`. */
const typeEntries = [pkg.types, ...Object.values(pkg.exports).flatMap((target) => (typeof target === 'object' && target.types ? [target.types] : []))].map((path) =>
  join(repo, path),
);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const typesPackageOf = (name: string): string => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;

/** Whether a package's own files carry its types (a `types`/`typings` field, a `types` export condition, or index.d.ts). */
function shipsTypes(name: string): boolean {
  const dir = join(repo, 'node_modules', name);
  const manifest = readFileSync(join(dir, 'package.json'), 'utf8');
  return /"(types|typings)"\s*:/.test(manifest) || existsSync(join(dir, 'index.d.ts'));
}

/** Every bare module specifier in the declaration files reachable from `entries`, with the first file naming it. */
function bareImports(entries: readonly string[]): Map<string, string> {
  const seen = new Set<string>();
  const bare = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...text.matchAll(/\b(?:from|import)\s*['"]([^'"]+)['"]/g),
      ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
      ...text.matchAll(/\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/g),
    ].map((m) => m[1] as string);
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.')) {
        if (!bare.has(specifier)) bare.set(specifier, relative(repo, file));
        continue;
      }
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '');
      const found = [`${target}.d.ts`, join(target, 'index.d.ts')].find((path) => existsSync(path));
      assert.ok(found, `${relative(repo, file)} imports ${specifier}, which dist/ does not have`);
      visit(found);
    }
  };
  entries.forEach(visit);
  return bare;
}

test('the declarations reachable from the package entries import only node builtins and runtime dependencies that bring their types', () => {
  for (const entry of typeEntries) assert.ok(existsSync(entry), `${relative(repo, entry)} exists (npm run build)`);
  const wrong = [...bareImports(typeEntries)].flatMap(([specifier, file]) => {
    if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return [];
    const name = packageOf(specifier);
    if (dependencies.has(typesPackageOf(name))) return [];
    if (!dependencies.has(name)) return [`${file} imports '${specifier}': ${name} is not a dependency`];
    return shipsTypes(name) ? [] : [`${file} imports '${specifier}': its types are in ${typesPackageOf(name)}, which is not a dependency`];
  });
  assert.deepEqual(wrong, []);
});

test('a consumer with only the runtime dependencies type-checks against the declarations (tsc, no skipLibCheck)', async () => {
  // kbsync laid out as a strict installer (pnpm) lays it out: its declarations see its own dependencies and
  // nothing else, so a type that only a devDependency provides (or that npm happens to hoist) fails here.
  const work = await mkdtemp(join(tmpdir(), 'kbsync-dts-'));
  try {
    const installed = join(work, 'node_modules', 'kbsync');
    await cp(join(repo, 'dist'), join(installed, 'dist'), { recursive: true, filter: (path) => !/\.(js|map)$/.test(path) });
    await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'kbsync', type: 'module', types: pkg.types, exports: pkg.exports }));
    for (const name of [...dependencies, '@types/node']) {
      const inside = name === '@types/node' ? join(work, 'node_modules', name) : join(installed, 'node_modules', name);
      await mkdir(dirname(inside), { recursive: true });
      await symlink(join(repo, 'node_modules', name), inside, 'dir');
    }
    await writeFile(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await writeFile(
      join(work, 'consumer.ts'),
      [
        "import * as kbsync from 'kbsync';",
        "import { startEmulator } from 'kbsync/emulator';",
        'export const run: typeof kbsync.runSync = kbsync.runSync;',
        'export const daemon: typeof kbsync.runDaemon = kbsync.runDaemon;',
        'export const start: typeof startEmulator = startEmulator;',
        'export type Report = kbsync.SyncReport;',
        'export const outline: ReturnType<typeof kbsync.outline> | undefined = undefined;',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types: ['node'] },
        files: ['consumer.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', work], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(tsc.status, 0, `tsc on a consumer of the package:\n${tsc.stdout}${tsc.stderr}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
