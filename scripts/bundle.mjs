#!/usr/bin/env node
// Bundles the CLI (dist/cli/bundle/kbsync.js, plus chunks loaded on demand). A run of `kbsync` then loads one module instead
// of several hundred: Node's ESM loader cost more than the whole no-op sync it was loading (npm run bench, row 1).
// Packages that load files or native code by path at run time stay external.
import { build } from 'esbuild';

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
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __kbsyncRequire } from 'node:module'; const require = __kbsyncRequire(import.meta.url);" },
  logLevel: 'warning',
});
