import { Session } from 'node:inspector';
import v8 from 'node:v8';

/** How long the daemon must stay idle after a cycle before its memory is given back. */
const IDLE_DELAY_MS = 3000;
/** Growth of V8's heap since the last give-back that makes another worthwhile (a local cycle on a small tree grows it little). */
const WORTH_BYTES = 8 * 1024 * 1024;

/**
 * Gives back the memory a cycle used once the daemon is idle. A sweep of 10,000 files allocates tens of
 * megabytes, and V8 keeps its young generation grown to its largest (32 MB) and the freed old-space pages
 * committed until its own memory reducer runs, which on an idle daemon took half a minute or more: the
 * daemon sat at 150 MB where it needs about 100. A full garbage collection in low-memory mode (what
 * V8's reducer would do, asked through the in-process inspector: no port, no debugger) returns them at
 * once, for one collection of CPU after each busy spell (about 100-200 ms at 10,000 files).
 */
export class IdleMemory {
  readonly #delayMs: number;
  readonly #collect: (done: () => void) => void;
  #timer: NodeJS.Timeout | undefined;
  #heapAfterLast = 0;

  constructor(options: { readonly delayMs?: number; readonly collect?: (done: () => void) => void } = {}) {
    this.#delayMs = options.delayMs ?? IDLE_DELAY_MS;
    this.#collect = options.collect ?? lowMemoryCollection;
  }

  /** A cycle starts: no collection in the middle of it. */
  busy(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A cycle ended: collect once the daemon has stayed idle a while, if the heap grew enough to matter. */
  idle(): void {
    this.busy();
    this.#timer = setTimeout(() => this.#run(), this.#delayMs).unref();
  }

  stop(): void {
    this.busy();
  }

  #run(): void {
    this.#timer = undefined;
    if (v8.getHeapStatistics().total_heap_size < this.#heapAfterLast + WORTH_BYTES) return;
    this.#collect(() => (this.#heapAfterLast = v8.getHeapStatistics().total_heap_size));
  }
}

/**
 * V8's low-memory collection: everything unreachable freed, the young generation shrunk, pages returned.
 * It runs as a task after `post` returns; the session is closed after its answer, never from inside it
 * (disconnecting in the callback left the process hung).
 */
function lowMemoryCollection(done: () => void): void {
  const session = new Session();
  try {
    session.connect();
    session.post('HeapProfiler.collectGarbage', () =>
      setImmediate(() => {
        session.disconnect();
        done();
      }),
    );
  } catch {
    // No inspector in this Node build (or it refused): V8's own reducer returns the memory later.
    session.disconnect();
  }
}
