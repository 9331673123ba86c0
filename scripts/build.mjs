#!/usr/bin/env node
// `npm run build`: empties dist/, compiles src/ with tsc (tsconfig.build.json: JavaScript, declarations,
// source maps), then bundles the CLI (bundle.mjs).
// --no-check: tsc writes the same files without type-checking them (its declaration errors still fail the
// build). npm test builds so (run-tests.mjs), because `npm run typecheck` checks src/ beside it: the build then
// took 8 s of CPU instead of 14, on a machine the tests keep busy.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--no-check');
if (unknown.length > 0) {
  console.error(`usage: node scripts/build.mjs [--no-check] (got ${unknown.join(' ')})`);
  process.exit(2);
}
rmSync('dist', { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...(args.includes('--no-check') ? ['--noCheck'] : [])], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
await import('./bundle.mjs');
