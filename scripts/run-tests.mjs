#!/usr/bin/env node
// Runs every test file under test/ with node's own test runner, each compiled first (scripts/build-tests.mjs).
// Node 20's --test does not expand globs, so the list is built here.
// Usage: node scripts/run-tests.mjs [path-filter ...]
// With KBSYNC_TEST_TIMES=<file>, each test file appends its wall and CPU time there (scripts/test-times.mjs).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildTests } from './build-tests.mjs';

const filters = process.argv.slice(2);
/** @param {string} dir @returns {string[]} */
function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}
const files = findTests('test')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || 'test/**/*.test.ts'}`);
  process.exit(1);
}
const compiled = await buildTests(files);
// Each file is one test for the runner: the crash matrix and the chaos seeds run a few minutes on a busy
// 2-core machine, so a file gets 5 minutes before it counts as hung.
const result = spawnSync(
  process.execPath,
  [...(process.env.KBSYNC_TEST_TIMES ? ['--import', './scripts/test-times.mjs'] : []), '--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=300000', ...compiled],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
