import type * as z from 'zod/mini';
import type { Logger } from '../log.js';
import type { Attempts, RequestQueue } from '../queue/request-queue.js';
import { registerSecret } from '../secrets.js';
import { jsonOf, notJsonError, readAnswer } from './answer.js';
import { REPEATABLE, type Endpoint } from './endpoints.js';
import { ApiError, OutcomeUnknownError, isNotFound } from './errors.js';
import { SERVICE_LIMITS } from './limits.js';
import { isThrottleAnswer, mapServiceError, parseErrorBody } from './service-errors.js';
import type { TokenSource } from './token.js';
import type { HttpOutcome, HttpRequest, Transport } from './transport.js';

export type RetryPolicy = {
  /** Attempts in all for a repeatable call that keeps failing transiently (5xx, reset, timeout). */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Throttle answers tolerated for one call before giving up (each waits at least 1 s). */
  readonly maxThrottles: number;
  /**
   * Longest one throttle answer is waited out (its Retry-After). A service that asks for longer is not
   * waited for at all: the call fails at once, saying when to try again.
   */
  readonly maxRetryAfterMs: number;
  /** Longest the throttle answers of one call are waited out in all, before it fails as throttled. */
  readonly maxThrottleWaitMs: number;
};

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  maxThrottles: 30,
  maxRetryAfterMs: SERVICE_LIMITS.retryAfterMs,
  maxThrottleWaitMs: 5 * SERVICE_LIMITS.retryAfterMs,
};

export type CallSpec<T> = HttpRequest & {
  readonly endpoint: Endpoint;
  readonly schema: z.ZodMiniType<T>;
  /** For deletes: "not found" on a retry means our earlier attempt did it. */
  readonly goneOnRetry?: () => T;
};

type Failure = { readonly error: ApiError; readonly maybeExecuted: boolean };

/**
 * Runs one service call through the queue: paced attempts, throttles waited out for every call
 * (a throttled call was not executed), transient failures retried with backoff only where repeating
 * is safe, one token refresh on 401, and every answer validated before it is returned.
 */
export class Caller {
  readonly #transport: Transport;
  readonly #token: TokenSource;
  readonly #queue: RequestQueue;
  readonly #retry: RetryPolicy;
  readonly #logger: Logger;
  /** A retry was said at warn level: the next ones are the same news (the service is unwell), at debug. */
  #retrySaid = false;
  /** This machine's clock (ms): the service's time is estimated as the latest Date header plus the time since, read on it. */
  readonly #localNow: () => number;
  /** Service clock minus ours, from the latest answer's Date header. */
  #serverOffsetMs: number | undefined;
  /** The latest time any answer's Date header gave: the service's clock was at least that when it answered. */
  #latestDateMs = Number.NEGATIVE_INFINITY;

  constructor(options: { transport: Transport; token: TokenSource; queue: RequestQueue; retry: RetryPolicy; logger: Logger; localNow?: () => number }) {
    this.#transport = options.transport;
    this.#localNow = options.localNow ?? Date.now;
    this.#token = options.token;
    this.#queue = options.queue;
    this.#retry = options.retry;
    this.#logger = options.logger;
  }

  get queue(): RequestQueue {
    return this.#queue;
  }

  /**
   * The service's current time as estimated from its last answer (±1 s), or undefined before any answer; never
   * behind the latest Date header seen. An answer whose reading was delayed here (a busy machine, answers read
   * out of order) makes the estimate lag; the bound of a write's minute taken from it then came out a minute
   * early, and kbsync took its own write's later stamp for someone's hidden edit (soak seed 5).
   */
  serverTime(): Date | undefined {
    return this.#serverOffsetMs === undefined ? undefined : new Date(Math.max(this.#localNow() + this.#serverOffsetMs, this.#latestDateMs));
  }

  request<T>(spec: CallSpec<T>): Promise<T> {
    return this.#queue.run(spec.endpoint, (attempts) => this.#attemptUntilSettled(spec, attempts));
  }

  async #attemptUntilSettled<T>(spec: CallSpec<T>, attempts: Attempts): Promise<T> {
    const { endpoint } = spec;
    let failures = 0;
    let throttles = 0;
    let waited = 0;
    let refreshed = false;
    let token = await this.#currentToken();
    for (;;) {
      const sentToken = token;
      const outcome = await attempts.send((signal) => this.#transport.send(spec, sentToken, signal));
      // kbsync is stopping and the request was cut short: not a failure of the service, and never retried.
      if (outcome.kind === 'failed' && attempts.signal.aborted) throw attempts.signal.reason;
      this.#noteServerClock(outcome);
      if (outcome.kind === 'oversized') {
        const error = oversizedError(endpoint, outcome.status, outcome.limitBytes);
        // A create that answered too much was executed all the same: what it made is looked for, never made twice.
        throw outcome.status < 300 && !REPEATABLE[endpoint] ? this.#outcomeUnknown(endpoint, error) : error;
      }
      if (outcome.kind === 'answer' && outcome.status < 300) {
        try {
          return readAnswer(endpoint, outcome, spec.schema);
        } catch (error) {
          // It was executed, but we cannot tell what it made: the caller must reconcile.
          if (!REPEATABLE[endpoint] && error instanceof ApiError) throw this.#outcomeUnknown(endpoint, error);
          throw error;
        }
      }
      if (outcome.kind === 'answer' && isThrottleAnswer(outcome.status, parseErrorBody(jsonOf(outcome)).code)) {
        if (++throttles > this.#retry.maxThrottles) throw throttledError(endpoint, outcome.status, throttles);
        const asked = outcome.retryAfterMs ?? 0;
        if (asked > this.#retry.maxRetryAfterMs) throw waitTooLongError(endpoint, outcome.status, asked, this.#retry.maxRetryAfterMs);
        if (waited + asked > this.#retry.maxThrottleWaitMs) throw throttledError(endpoint, outcome.status, throttles);
        const pauseMs = attempts.throttled(outcome.retryAfterMs);
        waited += pauseMs;
        this.#logger.debug({ endpoint, pauseMs }, 'throttled by the service; waiting');
        attempts.retrying();
        continue;
      }
      if (outcome.kind === 'answer' && outcome.status === 401 && !refreshed && this.#token.refresh) {
        refreshed = true;
        this.#logger.info({ endpoint }, 'access token rejected; refreshing it once');
        token = await this.#token.refresh();
        registerSecret(token);
        attempts.retrying();
        continue;
      }
      const failure = classify(endpoint, outcome);
      if (failures > 0 && spec.goneOnRetry && isNotFound(failure.error)) return spec.goneOnRetry();
      if (!isTransientFailure(outcome)) throw failure.error;
      if (failure.maybeExecuted && !REPEATABLE[endpoint]) throw this.#outcomeUnknown(endpoint, failure.error);
      if (++failures >= this.#retry.attempts) throw failure.error;
      const delayMs = this.#backoffMs(failures);
      const fields = { endpoint, attempt: failures + 1, delayMs, reason: failure.error.message };
      if (this.#retrySaid) this.#logger.debug(fields, 'transient failure; retrying');
      else this.#logger.warn(fields, `the service failed a request (${failure.error.message}); retrying it (further retries are logged at debug level)`);
      this.#retrySaid = true;
      await attempts.clock.sleep(delayMs, attempts.signal);
      attempts.retrying();
    }
  }

  #noteServerClock(outcome: HttpOutcome): void {
    const at = outcome.kind === 'answer' && outcome.date ? Date.parse(outcome.date) : Number.NaN;
    // The header has whole seconds: aim at the middle of that second.
    if (Number.isNaN(at)) return;
    this.#serverOffsetMs = at + 500 - this.#localNow();
    this.#latestDateMs = Math.max(this.#latestDateMs, at);
  }

  async #currentToken(): Promise<string> {
    const token = await this.#token.get();
    registerSecret(token);
    return token;
  }

  /** Exponential backoff with jitter: base, 2×base, 4×base… capped; between half and all of it. */
  #backoffMs(failures: number): number {
    const ceiling = Math.min(this.#retry.maxDelayMs, this.#retry.baseDelayMs * 2 ** (failures - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  #outcomeUnknown(endpoint: Endpoint, error: ApiError): OutcomeUnknownError {
    return new OutcomeUnknownError(`${endpoint} failed after it may have reached the service: ${error.message}`, error, { cause: error });
  }
}

/** 5xx, resets, timeouts, refused connections: the service or the network was unwell. */
function isTransientFailure(outcome: Exclude<HttpOutcome, { kind: 'oversized' }>): boolean {
  return outcome.kind === 'failed' || outcome.status >= 500;
}

function classify(endpoint: Endpoint, outcome: Exclude<HttpOutcome, { kind: 'oversized' }>): Failure {
  if (outcome.kind === 'failed') {
    const error = new ApiError(
      'API_NETWORK',
      `The call ${endpoint} failed on the network (${outcome.code}: ${outcome.message}).`,
      { endpoint },
      { hint: 'Check the network and baseUrl; if the service is slow, raise timeoutMs.' },
    );
    return { error, maybeExecuted: outcome.maybeSent };
  }
  const json = jsonOf(outcome);
  if (outcome.status >= 500) return { error: mapServiceError(endpoint, outcome.status, parseErrorBody(json)), maybeExecuted: true };
  if (outcome.status < 400) {
    const error = new ApiError('API_BAD_RESPONSE', `The service answered ${endpoint} with a redirect (HTTP ${outcome.status}).`, { endpoint, status: outcome.status }, {
      hint: 'Check baseUrl: it must be the API address itself (kbsync does not follow redirects, which would send the token elsewhere).',
    });
    return { error, maybeExecuted: false };
  }
  if (json === undefined) return { error: notJsonError(endpoint, outcome), maybeExecuted: false };
  return { error: mapServiceError(endpoint, outcome.status, parseErrorBody(json)), maybeExecuted: false };
}

function throttledError(endpoint: Endpoint, status: number, throttles: number): ApiError {
  return new ApiError('API_THROTTLED', `The service kept throttling ${endpoint} (${throttles} times in a row).`, { endpoint, status }, {
    hint: 'Another program may be using the same app credentials, or the monthly call quota is exhausted: wait, then try again.',
  });
}

/** A Retry-After past what kbsync waits (an hour, a date in 2100): said at once, with when to come back. */
/** Past this a wait is not a time anyone will see (a Date cannot even hold some of them): about three centuries. */
const FOREVER_MS = 1e13;

function waitTooLongError(endpoint: Endpoint, status: number, askedMs: number, maxMs: number): ApiError {
  const until = askedMs < FOREVER_MS ? new Date(Date.now() + askedMs).toISOString().replace(/\.\d+Z$/, 'Z') : 'a time too far away to say';
  return new ApiError('API_THROTTLED', `The service asked kbsync to wait ${duration(askedMs)} before calling ${endpoint} again (Retry-After), longer than kbsync waits (${duration(maxMs)}).`, { endpoint, status }, {
    hint: `The app's rate or its monthly call quota is spent: run again after ${until}. Nothing more was sent.`,
  });
}

/** An answer longer than kbsync reads: refused as it arrived, so it was not read whole (and nothing of it used). */
function oversizedError(endpoint: Endpoint, status: number, limitBytes: number): ApiError {
  return new ApiError('API_BAD_RESPONSE', `The service's answer to ${endpoint} (HTTP ${status}) is longer than ${limitBytes / (1024 * 1024)} MiB, the most kbsync reads of one answer; it was cut off unread.`, { endpoint, status }, {
    hint: 'No real answer is that long: check that service.baseUrl points at the knowledge-base API and not at something else (a proxy, a download). Nothing was recorded from it.',
  });
}

/** A wait in words: `45 s`, `60 min`, `29 h`, `27394 days`. */
function duration(ms: number): string {
  if (!(ms < FOREVER_MS)) return 'centuries';
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}
