import type * as z from 'zod/mini';
import type { Logger } from '../log.js';
import type { Attempts, RequestQueue } from '../queue/request-queue.js';
import { registerSecret } from '../secrets.js';
import { jsonOf, notJsonError, readAnswer } from './answer.js';
import { REPEATABLE, type Endpoint } from './endpoints.js';
import { ApiError, OutcomeUnknownError, isNotFound } from './errors.js';
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
};

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4000, maxThrottles: 30 };

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
  /** Service clock minus ours, from the latest answer's Date header. */
  #serverOffsetMs: number | undefined;

  constructor(options: { transport: Transport; token: TokenSource; queue: RequestQueue; retry: RetryPolicy; logger: Logger }) {
    this.#transport = options.transport;
    this.#token = options.token;
    this.#queue = options.queue;
    this.#retry = options.retry;
    this.#logger = options.logger;
  }

  get queue(): RequestQueue {
    return this.#queue;
  }

  /** The service's current time as estimated from its last answer (±1 s), or undefined before any answer. */
  serverTime(): Date | undefined {
    return this.#serverOffsetMs === undefined ? undefined : new Date(Date.now() + this.#serverOffsetMs);
  }

  request<T>(spec: CallSpec<T>): Promise<T> {
    return this.#queue.run(spec.endpoint, (attempts) => this.#attemptUntilSettled(spec, attempts));
  }

  async #attemptUntilSettled<T>(spec: CallSpec<T>, attempts: Attempts): Promise<T> {
    const { endpoint } = spec;
    let failures = 0;
    let throttles = 0;
    let refreshed = false;
    let token = await this.#currentToken();
    for (;;) {
      const sentToken = token;
      const outcome = await attempts.send(() => this.#transport.send(spec, sentToken));
      this.#noteServerClock(outcome);
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
        const pauseMs = attempts.throttled(outcome.retryAfterMs);
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
      await attempts.clock.sleep(delayMs);
      attempts.retrying();
    }
  }

  #noteServerClock(outcome: HttpOutcome): void {
    const at = outcome.kind === 'answer' && outcome.date ? Date.parse(outcome.date) : Number.NaN;
    // The header has whole seconds: aim at the middle of that second.
    if (!Number.isNaN(at)) this.#serverOffsetMs = at + 500 - Date.now();
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
function isTransientFailure(outcome: HttpOutcome): boolean {
  return outcome.kind === 'failed' || outcome.status >= 500;
}

function classify(endpoint: Endpoint, outcome: HttpOutcome): Failure {
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
