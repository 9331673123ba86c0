import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type { Got } from 'got';
import { redact } from '../secrets.js';
import { SERVICE_LIMITS } from './limits.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type HttpRequest = {
  readonly method: HttpMethod;
  /** Path below baseUrl, segments already encoded, e.g. `/v2.0/wiki/nodes`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string | number | undefined>>;
  readonly body?: Readonly<Record<string, unknown>> | undefined;
};

/** What one attempt produced: an HTTP answer of any status, or a failure before any answer. */
export type HttpOutcome =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly retryAfterMs: number | undefined;
      readonly contentType: string;
      readonly body: string;
      /** The service's clock from the HTTP Date header (whole seconds), when sent. */
      readonly date: string | undefined;
    }
  | {
      /** The answer was longer than SERVICE_LIMITS.answerBytes: refused while it streamed in, never held whole. */
      readonly kind: 'oversized';
      readonly status: number;
      readonly limitBytes: number;
    }
  | {
      readonly kind: 'failed';
      /** False only when the request surely never reached the service (connection refused, no such host). */
      readonly maybeSent: boolean;
      readonly code: string;
      readonly message: string;
    };

// Failures that happen before a connection exists: the service never saw the request.
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// One keep-alive pool per process: connection setup would otherwise cost more than many calls.
type Agents = { readonly http: Http.Agent; readonly https: Https.Agent };
let made: Agents | undefined;

// Node's http and https, required on first use. Not import(): the CLI's bundle is a script run from V8's code
// cache (src/cli/code-cache.ts), and a script's import() has no loader to call.
const require = createRequire(import.meta.url);

/**
 * Made with the first request, like got: loading node:https (and TLS with it) at startup cost a run that
 * sends nothing (a no-op push, --help) tens of milliseconds.
 */
function keepAliveAgents(): Agents {
  made ??= {
    http: new (require('node:http') as typeof Http).Agent({ keepAlive: true }),
    https: new (require('node:https') as typeof Https).Agent({ keepAlive: true }),
  };
  return made;
}

/**
 * Idle connections older than this are closed before the next request instead of reused. A server closes
 * an idle keep-alive connection after its own timeout (Node's default: 5 s); a client busy for longer (a
 * push reading and parsing 1,000 files before its first create) would otherwise send on a socket the server
 * has closed, and a create that fails so cannot be retried (it may have been received).
 */
const IDLE_REUSE_MS = 4000;
let lastActivity = Date.now();

function dropStaleConnections(now: number): void {
  if (now - lastActivity > IDLE_REUSE_MS) {
    for (const pool of made ? [made.http, made.https] : []) for (const sockets of Object.values(pool.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
  lastActivity = now;
}

type LoadedGot = { readonly got: Got; readonly isRequestError: (error: unknown) => error is { code: string } };

/**
 * Sends exactly one HTTP request per call: got's own retries are off (the client retries, so the
 * accounting is exact), redirects are not followed (they would carry the token elsewhere), and
 * no error object from got escapes: those hold the request options, and so the token.
 */
export class Transport {
  readonly #options: { readonly timeoutMs: number };
  readonly #baseUrl: string;
  readonly #tokenHeader: string;
  #got: Promise<LoadedGot> | undefined;

  constructor(options: { baseUrl: string; tokenHeader: string; timeoutMs: number }) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#tokenHeader = options.tokenHeader;
    this.#options = options;
  }

  /**
   * got is loaded on the first request, not at startup: it is the largest module kbsync loads, and a
   * run with nothing to send (a no-op push, --help) should not pay for it.
   */
  #client(): Promise<LoadedGot> {
    this.#got ??= import('got').then(({ default: got, RequestError }) => ({
      isRequestError: (error: unknown): error is { code: string } => error instanceof RequestError,
      got: got.extend({
        agent: keepAliveAgents(),
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        timeout: { request: this.#options.timeoutMs },
        responseType: 'text',
        headers: { 'user-agent': 'kbsync', accept: 'application/json' },
      }),
    }));
    return this.#got;
  }

  /**
   * One attempt. `signal` aborts the request at once (kbsync is stopping). An answer longer than
   * SERVICE_LIMITS.answerBytes (announced, or counted as it arrives, decompressed) is cut off where it
   * passes the limit: memory holds at most that much of it.
   */
  async send(request: HttpRequest, token: string, signal?: AbortSignal): Promise<HttpOutcome> {
    const searchParams: Record<string, string | number> = {};
    for (const [key, value] of Object.entries(request.query)) if (value !== undefined) searchParams[key] = value;
    const { got, isRequestError } = await this.#client();
    dropStaleConnections(Date.now());
    const limitBytes = SERVICE_LIMITS.answerBytes;
    let refusedStatus: number | undefined;
    let status = 0;
    const pending = got(`${this.#baseUrl}${request.path}`, {
      method: request.method,
      searchParams,
      headers: { [this.#tokenHeader]: token },
      ...(request.body === undefined ? {} : { json: request.body }),
      ...(signal ? { signal } : {}),
    });
    const refuse = (): void => {
      refusedStatus ??= status;
      pending.cancel();
    };
    void pending.on('response', (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
      status = response.statusCode;
      if (Number(response.headers['content-length']) > limitBytes) refuse();
    });
    void pending.on('downloadProgress', (progress: { transferred: number }) => {
      if (progress.transferred > limitBytes) refuse();
    });
    try {
      const response = await pending;
      lastActivity = Date.now();
      return {
        kind: 'answer',
        status: response.statusCode,
        retryAfterMs: parseRetryAfter(response.headers['retry-after']),
        contentType: response.headers['content-type'] ?? '',
        body: response.body,
        date: response.headers.date,
      };
    } catch (error) {
      if (refusedStatus !== undefined) return { kind: 'oversized', status: refusedStatus, limitBytes };
      const code = isRequestError(error) ? error.code : 'ERR_UNKNOWN';
      const message = redact(error instanceof Error ? error.message : String(error));
      return { kind: 'failed', maybeSent: !NEVER_SENT.has(code), code, message };
    }
  }
}

/**
 * Retry-After is seconds or an HTTP date; anything else is ignored. The wait is returned as asked, however
 * long (a date in 2100 included): the caller decides what it is willing to wait (SERVICE_LIMITS.retryAfterMs).
 */
function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
