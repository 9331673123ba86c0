#!/usr/bin/env node
// The published entry point: runs the bundled CLI (built by `npm run build`, which `npm install` runs via
// prepare) from V8's code cache when there is one (src/cli/code-cache.ts).
import { fileURLToPath } from 'node:url';
import { runBundle } from '../dist/cli/code-cache.js';

runBundle(fileURLToPath(new URL('../dist/cli/bundle/kbsync.cjs', import.meta.url)));
