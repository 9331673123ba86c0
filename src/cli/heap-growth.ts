import { setFlagsFromString } from 'node:v8';

/**
 * How far V8's heap may grow past what its last full collection kept before it collects again. V8's own
 * choice, while collecting is cheap (kbsync's live heap is small), is up to 4×: a first push of 10,000
 * notes keeps about 50 MB live, but the answers, parses and tokens it makes and drops (tens of MB a second)
 * took its heap to 280 MB and the process to 470 MB. At 20 % the heap stays within about 1.2× what is live
 * plus the young generation, for more, shorter collections (incremental, off the main thread in part).
 */
const HEAP_GROWING_PERCENT = 20;

/**
 * Asks V8 for that growth, for this process only (the CLI's launcher; the programmatic API leaves its host's heap
 * alone). A growth set in NODE_OPTIONS or on node's command line stands. Set before the bundle is compiled: V8's
 * code cache is keyed by the flags, so a flag set after it was read made every run reject the cache made by the
 * run before (compiled whole, about 60 ms more for each command; bench row 1).
 */
export function boundHeapGrowth(env: NodeJS.ProcessEnv): void {
  const given = [...process.execArgv, env['NODE_OPTIONS'] ?? ''].some((arg) => /heap[-_]growing[-_]percent/.test(arg));
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
