// Compiles test files to JavaScript before node's test runner starts them (one process per file, or per
// group of files: run-tests.mjs groups the unit tests).
// Loading them through tsx cost each file about 1.4 s of CPU (measured: a file importing the sync engine
// and the emulator took 2.1 s through tsx, 0.8 s precompiled), over 150 files more than two minutes of the
// suite; esbuild (which tsx runs on every module anyway) compiles all of them in a few seconds.
// Each test file becomes one bundle; shared modules, packages included, become chunks (a file importing the
// engine and the emulator: 0.6 s of CPU with packages read from node_modules, 0.5 s bundled). Every module's `import.meta.url` is its own source file's URL,
// so paths a test or the code builds from it (fixtures, bin/kbsync.js, the package root) are unchanged.
// Children a test starts from a .ts file still run through tsx.
import { readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REQUIRE_BANNER, withBundledRequires } from './bundled-requires.mjs';

/**
 * Inside node_modules: bare imports of the external packages resolve to the repository's; git and eslint
 * skip it. One folder per run, so two runs in one clone (a filtered one beside the whole suite) do not
 * replace each other's files.
 */
export const TEST_BUILD_DIR = join('node_modules', '.cache', 'kbsync-tests', String(process.pid));

/** @type {import('esbuild').Plugin} */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = withBundledRequires(args.path, await readFile(args.path, 'utf8'));
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/** esbuild's name for a group's entry: `kbsync-group:<index>`, resolved by the plugin below. */
const GROUP = 'kbsync-group:';

/**
 * A group's entry: a module that imports each of its test files, so that they run in one process, one
 * after another, as if they were one file.
 * @param {readonly (readonly string[])[]} groups
 * @returns {import('esbuild').Plugin}
 */
const groupEntries = (groups) => ({
  name: 'test-groups',
  setup(b) {
    b.onResolve({ filter: /^kbsync-group:/ }, (args) => ({ path: args.path, namespace: 'test-group' }));
    b.onLoad({ filter: /.*/, namespace: 'test-group' }, (args) => ({
      contents: (groups[Number(args.path.slice(GROUP.length))] ?? []).map((file) => `import ${JSON.stringify(`./${relative('.', file)}`)};`).join('\n'),
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
});

/**
 * Compiles each test file (a path of a .test.ts file relative to the repository) to a file of its own, and
 * each group (a list of such paths) to one file that runs them all. Returns the compiled paths in the order
 * given, which is also the order of their names.
 * @param {readonly (string | readonly string[])[]} tests
 * @returns {Promise<string[]>}
 */
export async function buildTests(tests) {
  /** @type {(readonly string[])[]} */
  const groups = [];
  // Node 20's test runner sorts the files it is given by name before it starts them (createTestFileList), so
  // each compiled file goes into a folder named by its place: `003/test/sync/basics.test.js` is started fourth.
  const entries = tests.map((test, index) => {
    const place = String(index).padStart(3, '0');
    if (typeof test === 'string') return { in: test, out: join(place, relative('.', test).replace(/\.ts$/, '')) };
    groups.push(test);
    return { in: `${GROUP}${groups.length - 1}`, out: join(place, 'test', `group-${groups.length}.test`) };
  });
  await build({
    entryPoints: entries,
    outdir: TEST_BUILD_DIR,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages are bundled as well: a test file's process then loads a few chunks instead of reading hundreds of
    // modules from node_modules one by one. These stay external: native code (better-sqlite3, esbuild), what
    // starts workers or hooks by file name (pino, tsx), kbsync itself, which the package tests import by name, and
    // fast-check, whose one instance the runner's preload seeds (property-seed.mjs).
    external: ['better-sqlite3', 'esbuild', 'pino', 'pino-pretty', 'tsx', 'kbsync', 'kbsync/*', 'fast-check'],
    banner: { js: REQUIRE_BANNER },
    // Stack traces of a failing test point at the .ts lines (the runner runs with --enable-source-maps). Without
    // the sources' text in them, which no stack trace reads: every test process reads and parses its chunks' maps
    // as it loads them, 4 MB less for a sync test's (0.26 s of CPU to load one, not 0.30).
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [sourceUrls, groupEntries(groups)],
    logLevel: 'warning',
    // public-api.test.ts asserts that the entry has no startEmulator: that the import is undefined is its point.
    logOverride: { 'import-is-undefined': 'silent' },
  });
  return entries.map((entry) => join(TEST_BUILD_DIR, `${entry.out}.js`));
}

/** Removes this run's compiled files. */
export const removeTestBuild = () => rm(TEST_BUILD_DIR, { recursive: true, force: true });
