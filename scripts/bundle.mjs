#!/usr/bin/env node
// Bundles the CLI into one CommonJS script, dist/cli/bundle/kbsync.cjs. A run of `kbsync` then loads one file
// instead of several hundred modules (Node's ESM loader cost more than the whole no-op sync it was loading:
// npm run bench, row 1), and bin/kbsync.js runs it through V8's code cache (src/cli/code-cache.ts), which
// Node 20 offers for scripts only. The emulator and the daemon, which commands load with import(), are in
// the script too: code not run is only scanned, and the cache holds what runs. Packages that load files or
// native code by path at run time stay external.
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { build } from 'esbuild';
import { withBundledRequires } from './bundled-requires.mjs';

/** @type {import('esbuild').Plugin} */
const bundledRequires = {
  name: 'bundled-requires',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({ contents: withBundledRequires(args.path, await readFile(args.path, 'utf8')), loader: 'ts' }));
  },
};

// better-sqlite3 is native; pino starts its transports (pino-pretty) as worker threads by file name.
const external = ['better-sqlite3', 'pino', 'pino-pretty'];

/**
 * An import() the bundle does not resolve itself (of Node's own modules or an external package) stays an
 * import() in the script, and fails there: Node 20 gives a script run from a code cache no loader for it.
 * @type {import('esbuild').Plugin}
 */
const noKeptImports = {
  name: 'no-kept-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || !(isBuiltin(args.path) || external.includes(args.path))) return undefined;
      return { errors: [{ text: `import('${args.path}') cannot run in the CLI's script (src/cli/code-cache.ts): require it on first use instead (createRequire, as src/log.ts does)` }] };
    });
  },
};

await build({
  entryPoints: { kbsync: 'src/cli/main.ts' },
  outfile: 'dist/cli/bundle/kbsync.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external,
  // A script has no import.meta: modules that find files from their own place (package-root.ts) get the
  // bundle's URL, which is where they are.
  banner: { js: "const __kbsyncBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__kbsyncBundleUrl' },
  plugins: [noKeptImports, bundledRequires],
  logLevel: 'warning',
});
