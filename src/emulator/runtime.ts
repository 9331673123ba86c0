import type { CallCounter } from './calls.js';
import type { Clock } from './clock.js';
import type { FaultInjector } from './faults.js';
import type { Operations } from './operations.js';
import type { RateLimiter } from './rate-limit.js';
import type { Store } from './store/store.js';

/** Everything one running emulator is made of, shared by the service pipeline, the web view and the admin. */
export type Runtime = {
  readonly store: Store;
  readonly ops: Operations;
  readonly clock: Clock;
  readonly faults: FaultInjector;
  readonly limiter: RateLimiter;
  readonly counter: CallCounter;
  readonly tokenHeader: string;
  /** Known once the server listens; node and workspace URLs are built from it at answer time. */
  baseUrl: string;
  /** Aborted on close: pending injected latency ends at once. */
  readonly closing: AbortSignal;
  nextRequestId(): string;
};
