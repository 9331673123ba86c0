// Runs the CLI's bundle with V8's code cache, kept beside the bundle.
//
// A `kbsync` run is short, and compiling its bundle is a large part of it, every run. V8 can save the code it
// compiled and take it back next time instead of compiling again (measured against the ES bundle, builds
// alternating: a five-file `kbsync sync` edit 326-342 -> 262-284 ms of CPU, a no-op 302-312 -> 246-248 ms;
// taking the cache back costs about 23 ms of that, reading the heap's bytecode size at exit about 2.5 ms).
// Node 22 offers this as `module.enableCompileCache()`, Node 20 only for scripts (`vm.Script`'s cachedData),
// so the CLI's bundle is a CommonJS script and this module loads it.
//
// The cache is a file beside the bundle: as trusted as the code next to it, and a rebuild (which empties dist/)
// takes it away with the code it was made from. A folder kbsync cannot write (a system-wide install) means no
// cache, never an error. The file is replaced by rename, so a run reading it sees a whole file; checksums
// keep out a damaged one and one made for other code (V8 checks versions and lengths, not the bytes, in
// release builds), and V8 itself refuses one made by another Node.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { getHeapCodeStatistics } from 'node:v8';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { boundHeapGrowth } from './heap-growth.js';

/**
 * The header before V8's data: the data's checksum, the checksum of the bundle it was made from (V8 tells
 * sources apart by length only, and a new kbsync copied over an old one may keep the length), and how much
 * bytecode the run that made it held.
 */
const HEADER_BYTES = 12;
/**
 * A run that compiled this much more than its cache held (a first `sync` after a first `--version`) makes a
 * new cache, so the cache grows to hold what the commands people run use; smaller growth is not worth the
 * write (tens of milliseconds for a cache of a megabyte or two).
 */
const REGROW_RATIO = 1.25;

type Cached = { readonly data: Buffer; readonly bytecode: number };

/** The cache file for this bundle under this Node (V8 would refuse another's). */
export function codeCachePath(bundle: string): string {
  return `${bundle}.${process.version}-${process.arch}.v8cache`;
}

function readCache(file: string, bundleSum: number): Cached | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES) return undefined;
  const data = bytes.subarray(HEADER_BYTES);
  const whole = crc32(data) === bytes.readUInt32LE(0) && bytes.readUInt32LE(4) === bundleSum;
  return whole ? { data, bytecode: bytes.readUInt32LE(8) } : undefined;
}

function writeCache(file: string, data: Buffer, bundleSum: number, bytecode: number): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(crc32(data), 0);
  header.writeUInt32LE(bundleSum, 4);
  header.writeUInt32LE(Math.min(bytecode, 0xffffffff), 8);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([header, data]));
    renameSync(temporary, file);
  } catch {
    // A folder this user cannot write, or a full disk: the next run compiles, as it would without a cache.
    rmSync(temporary, { force: true });
  }
}

const bytecodeHeld = (): number => getHeapCodeStatistics().bytecode_and_metadata_size;

/** Runs the CommonJS bundle at `bundle` (an absolute path), from V8's code cache when it has a good one. */
export function runBundle(bundle: string): void {
  // Before anything is compiled: the cache read below and the one written at exit are made under the same flags.
  boundHeapGrowth(process.env);
  const file = codeCachePath(bundle);
  const code = readFileSync(bundle);
  const bundleSum = crc32(code);
  const cached = readCache(file, bundleSum);
  // The CommonJS wrapper, on the bundle's first line so its line numbers stay those of the file.
  const source = `(function (exports, require, module, __filename, __dirname) {${code.toString('utf8')}\n})`;
  // No import() in the script (bundle.mjs refuses one): Node 20 loses the loader it would call for functions
  // that come from a cache.
  const script = new Script(source, { filename: bundle, ...(cached && { cachedData: cached.data }) });
  // Only the number is kept for the exit: the cache's bytes (a megabyte or two) would stay for the process's
  // whole life (a daemon's) if the handler held them.
  const cachedBytecode = cached !== undefined && !script.cachedDataRejected ? cached.bytecode : undefined;
  process.once('exit', () => {
    const held = bytecodeHeld();
    // Made at exit, the cache holds every function this run compiled, not only the bundle's top level.
    if (cachedBytecode === undefined || held > cachedBytecode * REGROW_RATIO) writeCache(file, script.createCachedData(), bundleSum, held);
  });
  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}
