#!/usr/bin/env node
// The published entry point runs the bundled CLI (built by `npm run build`, which `npm install` runs via prepare).
import '../dist/cli/bundle/kbsync.js';
