/**
 * A tiny concurrency limiter for file-system calls: enough in flight to keep libuv's thread pool
 * busy, few enough that a 100,000-file tree does not open 100,000 requests at once.
 */
export type Limit = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimit(concurrency: number): Limit {
  let active = 0;
  const waiting: Array<() => void> = [];
  // A finished task hands its slot straight to the next waiter, so `active` never overshoots.
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < concurrency) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/** Runs tasks with at most `width` at once: a few workers taking the next task in turn. */
export async function runPool(tasks: ReadonlyArray<() => Promise<void>>, width: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next];
      next += 1;
      await task?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
}
