#!/usr/bin/env node
// Bundles the CLI into one CommonJS script, dist/cli/bundle/kbsync.cjs. A run of `kbsync` then loads one file
// instead of several hundred modules (Node's ESM loader cost more than the whole no-op sync it was loading:
// npm run bench, row 1), and bin/kbsync.js runs it through V8's code cache (src/cli/code-cache.ts), which
// Node 20 offers for scripts only. The emulator and the daemon, which commands load with import(), are in
// the script too: code not run is only scanned, and the cache holds what runs. Packages that load files or
// native code by path at run time stay external.
import { readFile, writeFile } from 'node:fs/promises';
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

const outfile = 'dist/cli/bundle/kbsync.cjs';

await build({
  entryPoints: { kbsync: 'src/cli/main.ts' },
  outfile,
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

// The script's source stays in V8's heap for the process's whole life (functions are compiled from it on first
// call), and one character past Latin-1 makes V8 store all of it two bytes a character: 5 MB instead of 2.5 in
// every kbsync process, a daemon's included. esbuild escapes what the code reads (strings, identifiers, regular
// expressions) but copies comments as they are, and a few dependencies' comments hold typographic quotes and
// emoji: escaped here (`\uXXXX`, inert in a comment). They end their lines, so the source map stays right.
const bundled = await readFile(outfile, 'utf8');
await writeFile(outfile, bundled.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
