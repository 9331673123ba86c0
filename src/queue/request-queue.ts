import { EventEmitter, setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { InputError } from '../errors.js';
import { systemClock, type Clock } from './clock.js';
import { QueueClosedError } from './errors.js';
import { Lane } from './lane.js';
import { addCounts, zeroCounts, type EndpointStats, type QueueStats } from './stats.js';

export type RequestQueueOptions = {
  /** Calls per second per endpoint (the real service allows about 20). 0 = unpaced. Default 20. */
  readonly rate?: number;
  /** Per-endpoint overrides of `rate`, by endpoint name. */
  readonly rates?: Readonly<Record<string, number>>;
  /** Calls in flight at once over all endpoints. Default 8. */
  readonly concurrency?: number;
  /** The rate never backs off below this. Default 1/s. */
  readonly minRate?: number;
  /** A throttled endpoint pauses at least this long. Default 1000 ms (the contract says retry after 1 s). */
  readonly minPauseMs?: number;
  /** Quiet time without throttling before the rate climbs one step back up. Default 2000 ms. */
  readonly quietMs?: number;
  readonly clock?: Clock;
};

/** What one operation may do with the queue: start paced attempts and report how they went. */
export type Attempts = {
  /**
   * Runs one HTTP attempt when the endpoint's limiter and the global bound allow. Counted as a call. The
   * attempt gets the queue's signal, aborted when the queue is closed: it must stop (abort its request) then.
   */
  send<T>(attempt: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** The service throttled the last attempt: the endpoint backs off. Returns the pause in ms. */
  throttled(retryAfterMs?: number): number;
  /** The operation will send another attempt (after a throttle or a transient failure). */
  retrying(): void;
  readonly clock: Clock;
  /** Aborted when the queue is closed: every wait of the operation (a backoff) ends then. */
  readonly signal: AbortSignal;
};

type QueueEvents = {
  throttle: [{ endpoint: string; pauseMs: number; rate: number }];
};

type DrainResult = { readonly drained: boolean; readonly inFlight: number; readonly operations: number };

/**
 * The one way kbsync's calls reach the service: per-endpoint adaptive pacing, a global concurrency
 * bound, exact call accounting, and a graceful drain.
 */
export class RequestQueue extends EventEmitter<QueueEvents> {
  readonly #options: RequestQueueOptions;
  readonly #clock: Clock;
  readonly #global: PQueue;
  readonly #lanes = new Map<string, Lane>();
  readonly #abort = new AbortController();
  readonly #idleWaiters = new Set<() => void>();
  #draining = false;
  #operations = 0;
  #queued = 0;
  #inFlight = 0;

  constructor(options: RequestQueueOptions = {}) {
    super();
    for (const [name, value] of Object.entries({ rate: options.rate, concurrency: options.concurrency, minRate: options.minRate })) {
      if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
        throw new InputError('INVALID_QUEUE_OPTION', `Queue option ${name} must be a number >= 0, got ${String(value)}.`);
      }
    }
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#global = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 8) });
    // Every waiting attempt listens on this one signal: many at once is normal, not a leak.
    setMaxListeners(0, this.#abort.signal);
  }

  get clock(): Clock {
    return this.#clock;
  }

  /**
   * Runs one operation (which may send several attempts) on `endpoint`. Refused once draining.
   * An operation that rejects counts as a failure of that endpoint.
   */
  async run<T>(endpoint: string, operation: (attempts: Attempts) => Promise<T>): Promise<T> {
    if (this.closed) throw this.#abort.signal.reason as QueueClosedError;
    if (this.#draining) throw new QueueClosedError(`The request queue is draining; a new ${endpoint} call was refused.`);
    const lane = this.#lane(endpoint);
    const attempts: Attempts = {
      send: (attempt) => this.#send(lane, attempt),
      throttled: (retryAfterMs) => this.#throttled(endpoint, lane, retryAfterMs),
      retrying: () => void lane.counts.retries++,
      clock: this.#clock,
      signal: this.#abort.signal,
    };
    this.#operations++;
    try {
      return await operation(attempts);
    } catch (error) {
      lane.counts.failures++;
      throw error;
    } finally {
      this.#operations--;
      if (this.#operations === 0) for (const wake of this.#idleWaiters) wake();
    }
  }

  /**
   * Stops accepting new operations and resolves when every accepted one has settled. With
   * `deadlineMs`, the queue is closed then (see `close`) and the result says what was still running.
   */
  async drain(options: { deadlineMs?: number } = {}): Promise<DrainResult> {
    this.#draining = true;
    const idle = new Promise<boolean>((resolve) => {
      if (this.#operations === 0) return resolve(true);
      const wake = (): void => {
        this.#idleWaiters.delete(wake);
        resolve(true);
      };
      this.#idleWaiters.add(wake);
    });
    const deadline = options.deadlineMs;
    const stopTimer = new AbortController();
    const timeUp = deadline === undefined ? [] : [this.#clock.sleep(deadline, stopTimer.signal).then(() => false)];
    const drained = await Promise.race([idle, ...timeUp]);
    stopTimer.abort();
    const inFlight = this.#inFlight;
    if (!drained) this.close(new QueueClosedError('The request queue was closed by its drain deadline before this call was answered.'));
    return { drained, inFlight, operations: this.#operations };
  }

  /**
   * Closes the queue now, whatever is pending: new operations and attempts not started are refused, every
   * wait (a pause a throttle asked for, a backoff, a turn) ends, and attempts in flight are told to abort
   * their requests. All of them reject with `reason`. Ctrl+C and the daemon's shutdown deadline end here,
   * so nothing the service answers (or does not) can keep kbsync from stopping.
   */
  close(reason: QueueClosedError = new QueueClosedError('kbsync is stopping, so this call was not sent or its answer not awaited.')): void {
    this.#draining = true;
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
  }

  /** True once the queue was closed (`close`, or a drain's deadline). */
  get closed(): boolean {
    return this.#abort.signal.aborted;
  }

  /**
   * Aborted when the queue closes, with its reason: kbsync is stopping now. Work that is no call but runs
   * on behalf of one (the token command, an image upload) listens to it too, so that nothing keeps kbsync
   * from stopping.
   */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  stats(): QueueStats {
    const endpoints: Record<string, EndpointStats> = {};
    const totals = zeroCounts();
    for (const [name, lane] of this.#lanes) {
      endpoints[name] = { ...lane.counts, rate: lane.limiter.rate };
      addCounts(totals, lane.counts);
    }
    return { endpoints, totals, queued: this.#queued, inFlight: this.#inFlight, operations: this.#operations };
  }

  #lane(endpoint: string): Lane {
    let lane = this.#lanes.get(endpoint);
    if (!lane) {
      const { rate = 20, rates = {}, minRate = 1, minPauseMs = 1000, quietMs = 2000 } = this.#options;
      lane = new Lane({ rate: rates[endpoint] ?? rate, minRate, minPauseMs, quietMs }, this.#clock);
      this.#lanes.set(endpoint, lane);
    }
    return lane;
  }

  #throttled(endpoint: string, lane: Lane, retryAfterMs: number | undefined): number {
    lane.counts.throttled++;
    const pauseMs = lane.limiter.throttled(this.#clock.now(), retryAfterMs);
    this.emit('throttle', { endpoint, pauseMs, rate: lane.limiter.rate });
    return pauseMs;
  }

  #send<T>(lane: Lane, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.#abort.signal;
    return new Promise<T>((resolve, reject) => {
      this.#queued++;
      let started = false;
      const refuse = (error: unknown): void => {
        if (started) return;
        started = true; // settle once: a refused attempt is no longer queued
        this.#queued--;
        reject(error);
      };
      // Resolves true once the attempt has started; false when the endpoint got paused while this
      // attempt waited for a global slot (it then goes back to waiting for its turn, holding nothing).
      const start = (): Promise<boolean> =>
        new Promise<boolean>((began) => {
          this.#global
            .add(
              async () => {
                if (!lane.ready()) return began(false);
                started = true;
                this.#queued--;
                this.#inFlight++;
                lane.counts.calls++;
                lane.started(this.#clock.now());
                began(true);
                try {
                  resolve(await attempt(signal));
                } catch (error) {
                  reject(error);
                } finally {
                  this.#inFlight--;
                }
              },
              { signal },
            )
            .catch((error: unknown) => {
              refuse(error);
              began(true);
            });
        });
      lane.dispatch(start, signal).catch(refuse);
    });
  }
}
