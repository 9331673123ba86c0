#!/usr/bin/env node
// Bundles the CLI (dist/cli/bundle/kbsync.js, plus chunks loaded on demand). A run of `kbsync` then loads one module instead
// of several hundred: Node's ESM loader cost more than the whole no-op sync it was loading (npm run bench, row 1).
// Packages that load files or native code by path at run time stay external.
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { REQUIRE_BANNER, withBundledRequires } from './bundled-requires.mjs';

/** @type {import('esbuild').Plugin} */
const bundledRequires = {
  name: 'bundled-requires',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({ contents: withBundledRequires(args.path, await readFile(args.path, 'utf8')), loader: 'ts' }));
  },
};

await build({
  entryPoints: { kbsync: 'src/cli/main.ts' },
  outdir: 'dist/cli/bundle',
  // Commands load the emulator (and the demo) with import(): they become chunks of their own, compiled only when used.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // better-sqlite3 is native; pino starts its transports (pino-pretty) as worker threads by file name.
  external: ['better-sqlite3', 'pino', 'pino-pretty'],
  banner: { js: REQUIRE_BANNER },
  plugins: [bundledRequires],
  logLevel: 'warning',
});
