import { KbsyncError } from '../errors.js';
import { redact } from '../secrets.js';
import type { Endpoint } from './endpoints.js';

export type ApiErrorCode =
  | 'API_BAD_REQUEST'
  | 'API_UNAUTHORIZED'
  | 'API_FORBIDDEN'
  | 'API_NOT_FOUND'
  | 'API_INVALID_PATH'
  | 'API_CONFLICT'
  | 'API_THROTTLED'
  | 'API_SERVER'
  | 'API_NETWORK'
  | 'API_BAD_RESPONSE'
  | 'API_TOO_LARGE'
  | 'API_OUTCOME_UNKNOWN'
  | 'API_UNSAFE_ID';

type ApiErrorDetails = {
  readonly endpoint: Endpoint;
  readonly status?: number | undefined;
  readonly serviceCode?: string | undefined;
  readonly requestId?: string | undefined;
  readonly requiredScopes?: readonly string[] | undefined;
};

/**
 * A call to the service failed. Carries what the service said (status, its code, its request id,
 * the scopes it wants) and never anything from the request itself: request options hold the token.
 */
export class ApiError extends KbsyncError {
  override readonly code: ApiErrorCode;
  readonly endpoint: Endpoint;
  readonly status: number | undefined;
  readonly serviceCode: string | undefined;
  readonly requestId: string | undefined;
  readonly requiredScopes: readonly string[] | undefined;

  constructor(code: ApiErrorCode, message: string, details: ApiErrorDetails, options: { hint?: string; cause?: unknown } = {}) {
    const hint = options.hint === undefined ? {} : { hint: redact(options.hint) };
    super(code, redact(message), { ...hint, cause: safeCause(options.cause) });
    this.code = code;
    this.endpoint = details.endpoint;
    this.status = details.status;
    this.serviceCode = details.serviceCode;
    this.requestId = details.requestId;
    this.requiredScopes = details.requiredScopes;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      endpoint: this.endpoint,
      status: this.status,
      serviceCode: this.serviceCode,
      requestId: this.requestId,
      requiredScopes: this.requiredScopes,
    };
  }
}

/**
 * A call that must not be repeated (create, append, add members) failed after it may have reached
 * the service. It may or may not have taken effect: the caller reconciles (list or search) before
 * anything else, and never simply sends it again.
 */
export class OutcomeUnknownError extends ApiError {
  constructor(message: string, details: ApiErrorDetails, options: { cause?: unknown } = {}) {
    super('API_OUTCOME_UNKNOWN', message, details, {
      ...options,
      hint: 'It may or may not have taken effect: kbsync checks the knowledge base before trying again.',
    });
  }
}

/** Keeps a cause's kind and message only, redacted: library errors carry request options (and so the token). */
function safeCause(cause: unknown): unknown {
  if (cause === undefined || cause instanceof KbsyncError) return cause;
  const plain = new Error(redact(cause instanceof Error ? cause.message : String(cause)));
  plain.name = cause instanceof Error ? cause.name : 'Error';
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') Object.assign(plain, { code });
  plain.stack = `${plain.name}: ${plain.message}`;
  return plain;
}

/** A paged answer said there is more but gave no way to get it: the listing cannot be completed. */
export function incompletePaging(endpoint: Endpoint): ApiError {
  return new ApiError('API_BAD_RESPONSE', `The service said more ${endpoint} results exist but sent no nextToken.`, { endpoint }, {
    hint: 'The result cannot be completed, so it is not used; try again later, and report it if it persists.',
  });
}

const hasCode =
  (...codes: ApiErrorCode[]) =>
  (error: unknown): error is ApiError =>
    error instanceof ApiError && codes.includes(error.code);

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
/** The service says the document, node or workspace does not exist (not a wrong path: see isInvalidPath). */
export const isNotFound = hasCode('API_NOT_FOUND');
/** The path does not exist on the service: baseUrl or the /v1.0 vs /v2.0 prefix is wrong. Never means "deleted". */
export const isInvalidPath = hasCode('API_INVALID_PATH');
export const isForbidden = hasCode('API_FORBIDDEN');
export const isUnauthorized = hasCode('API_UNAUTHORIZED');
export const isThrottled = hasCode('API_THROTTLED');
export const isConflict = hasCode('API_CONFLICT');
export const isOutcomeUnknown = (error: unknown): error is OutcomeUnknownError => error instanceof OutcomeUnknownError;
