import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { codeCachePath } from '../../../src/cli/code-cache.js';

// The loader the published CLI runs through (bin/kbsync.js), built by npm test, run on small scripts of our own in
// a child process each: what it does happens at a process's start and exit.
const loader = new URL('../../../dist/cli/code-cache.js', import.meta.url).href;

/** A CommonJS script that prints `label` and what the wrapper gave it; with "many", it first runs `count` more functions. */
function script(label: string, count = 0): string {
  const functions = Array.from({ length: count }, (_, i) => `function f${i}(x) { const parts = [x, ${i}, 'function ${i}']; return parts.join('-').length + ${i}; }`);
  const calls = Array.from({ length: count }, (_, i) => `total += f${i}(${i});`);
  return [
    `'use strict';`,
    ...functions,
    `let total = 0;`,
    `if (process.argv.includes('many')) { ${calls.join(' ')} }`,
    `console.log(${JSON.stringify(label)}, require('node:path').basename(__filename), module.exports === exports, total > 0);`,
  ].join('\n');
}

function run(bundle: string, ...args: string[]): string {
  const child = spawnSync(process.execPath, ['-e', 'import(process.argv[1]).then((m) => m.runBundle(process.argv[2]))', loader, bundle, ...args], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout.trim();
}

function withFolder(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'kbsync-code-cache-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The cache file's identity: a new file (written and renamed into place) has a new inode. */
const inode = (file: string): number => statSync(file).ino;

test('the first run keeps its compiled code beside the script; the next runs from it and leaves it be', () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, script('one', 50));
    assert.equal(run(bundle), 'one kbsync.cjs true false');
    const cache = codeCachePath(bundle);
    assert.ok(existsSync(cache), 'a cache after the first run');
    const first = inode(cache);
    assert.equal(run(bundle), 'one kbsync.cjs true false');
    assert.equal(inode(cache), first, 'a cache V8 accepted is not written again');
  });
});

test('a damaged cache is not used: the run is right and makes a whole one', () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, script('two', 50));
    run(bundle);
    const cache = codeCachePath(bundle);
    const bytes = readFileSync(cache);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
    writeFileSync(cache, bytes);
    assert.equal(run(bundle), 'two kbsync.cjs true false');
    const again = readFileSync(cache);
    assert.equal(crc32(again.subarray(12)), again.readUInt32LE(0), 'the cache was made again, whole');
  });
});

test('a cache made for other code of the same length is not used (V8 alone would take it)', () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, script('old', 50));
    assert.equal(run(bundle), 'old kbsync.cjs true false');
    const replaced = script('new', 50);
    assert.equal(replaced.length, script('old', 50).length);
    writeFileSync(bundle, replaced);
    assert.equal(run(bundle), 'new kbsync.cjs true false');
    assert.equal(run(bundle), 'new kbsync.cjs true false');
  });
});

test('a run that compiles much more than its cache holds makes a larger one', () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, script('three', 3000));
    run(bundle);
    const cache = codeCachePath(bundle);
    const small = statSync(cache).size;
    assert.equal(run(bundle, 'many'), 'three kbsync.cjs true true');
    assert.ok(statSync(cache).size > small * 2, `the cache grew from ${small} bytes to ${statSync(cache).size}`);
    const grown = inode(cache);
    assert.equal(run(bundle, 'many'), 'three kbsync.cjs true true');
    assert.equal(inode(cache), grown, 'a run that compiles nothing new leaves the cache be');
  });
});

test('where the cache cannot be written, the run is the same and leaves nothing behind', () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, script('four', 50));
    // A folder in the cache file's place: the rename fails whoever runs the test (root ignores permissions).
    mkdirSync(codeCachePath(bundle));
    assert.equal(run(bundle), 'four kbsync.cjs true false');
    assert.equal(run(bundle), 'four kbsync.cjs true false');
    assert.deepEqual(readdirSync(dir).sort(), ['kbsync.cjs', 'kbsync.cjs' + codeCachePath(bundle).slice(bundle.length)].sort());
  });
});

// The CLI sets a V8 flag of its own (its heap growth, src/cli/heap-growth.ts), and V8 keys a code cache by the flags:
// set from inside the bundle, after the cache was read, it made every run reject the cache the run before had made,
// compile the whole bundle and write the cache again (a no-op push as a process 2.6x a bare walk, bench row 1).
test("the CLI's own bundle runs from the cache its last run made: its flags are set before it is compiled", () => {
  const dir = mkdtempSync(join(fileURLToPath(new URL('../../../dist/cli/', import.meta.url)), 'bundle-cache-test-'));
  try {
    const bundle = join(dir, 'kbsync.cjs');
    writeFileSync(bundle, readFileSync(fileURLToPath(new URL('../../../dist/cli/bundle/kbsync.cjs', import.meta.url))));
    assert.match(run(bundle, '--version'), /^\d+\.\d+\.\d+/);
    const first = inode(codeCachePath(bundle));
    assert.match(run(bundle, '--version'), /^\d+\.\d+\.\d+/);
    assert.equal(inode(codeCachePath(bundle)), first, 'the next run took the cache and left it be');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a run from the cache does not keep the cache's bytes while it runs (a daemon's whole life)", () => {
  withFolder((dir) => {
    const bundle = join(dir, 'kbsync.cjs');
    // Enough functions for a cache of a few megabytes, and a script that says the least the process holds in array
    // buffers (where a Buffer read from a file lives) after full collections over a second: V8 frees a collected
    // buffer's bytes on a background thread, so one look right after a collection can still count them (1 run in 6).
    const holding = `let least = Infinity, looks = 0; const look = () => { globalThis.gc(); least = Math.min(least, process.memoryUsage().arrayBuffers); if (++looks < 20) setTimeout(look, 50); else console.log(least); }; setTimeout(look, 50);`;
    writeFileSync(bundle, `${script('big', 20_000)}\n${holding}`);
    const runHeld = (): number => {
      const child = spawnSync(process.execPath, ['--expose-gc', '-e', 'import(process.argv[1]).then((m) => m.runBundle(process.argv[2]))', loader, bundle, 'many'], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      return Number(child.stdout.trim().split('\n').pop());
    };
    runHeld();
    const cacheBytes = statSync(codeCachePath(bundle)).size;
    assert.ok(cacheBytes > 1_000_000, `a cache of ${cacheBytes} bytes is too small to tell`);
    const held = runHeld();
    assert.ok(held < cacheBytes / 4, `the run from the cache holds ${held} bytes in array buffers; its cache is ${cacheBytes}`);
  });
});

test("the CLI's script is ASCII throughout, so V8 keeps its source one byte a character", () => {
  const built = readFileSync(fileURLToPath(new URL('../../../dist/cli/bundle/kbsync.cjs', import.meta.url)), 'latin1');
  const at = [...built].findIndex((c) => c.charCodeAt(0) > 0x7f);
  assert.equal(at, -1, `a byte past ASCII at ${at}: ${JSON.stringify(built.slice(Math.max(0, at - 60), at + 20))}`);
});
