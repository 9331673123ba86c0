import type { Endpoint } from './endpoints.js';
import { quoted } from '../printable.js';
import { ApiError, type ApiErrorCode } from './errors.js';
import { SERVICE_LIMITS } from './limits.js';

type ServiceErrorBody = {
  readonly code: string | undefined;
  readonly message: string | undefined;
  readonly requestId: string | undefined;
  readonly requiredScopes: readonly string[] | undefined;
};

/**
 * The service's own words end up in kbsync's messages, logs and reports: each is quoted on one line, control
 * characters made visible, and cut at SERVICE_LIMITS.quotedChars (a code, an id or a scope name at a third of it).
 */
const text = (value: unknown, maxChars: number = SERVICE_LIMITS.quotedChars): string | undefined =>
  typeof value === 'string' && value !== '' ? quoted(value, maxChars) : undefined;
const NAME_CHARS = SERVICE_LIMITS.quotedChars / 3;
const MAX_SCOPES = 20;
const scopes = (value: unknown): string[] | undefined =>
  Array.isArray(value)
    ? value.filter((s): s is string => typeof s === 'string').slice(0, MAX_SCOPES).map((s) => quoted(s, NAME_CHARS))
    : typeof value === 'string'
      ? [quoted(value, NAME_CHARS)]
      : undefined;

/** The error body of the real service: `{ code, message, requestid }`, scopes at the top or under `accessdenieddetail`. */
export function parseErrorBody(json: unknown): ServiceErrorBody {
  const body = objectOrEmpty(json);
  return {
    code: text(body['code'], NAME_CHARS),
    message: text(body['message']),
    requestId: text(body['requestid'], NAME_CHARS) ?? text(body['requestId'], NAME_CHARS),
    requiredScopes: scopes(body['requiredScopes']) ?? scopes(objectOrEmpty(body['accessdenieddetail'])['requiredScopes']),
  };
}

const objectOrEmpty = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** 429, or the real service's 403 `Forbidden.AccessDenied.QpsLimit...`: the call was not executed. */
export const isThrottleAnswer = (status: number, code: string | undefined): boolean =>
  status === 429 || (status === 403 && code !== undefined && code.includes('QpsLimit'));

const GONE_CODES = new Set(['nodeNotExist', 'workspaceNotExist', 'docNotExist', 'invalidRequest.document.deleted']);
const looksGone = (code: string): boolean => GONE_CODES.has(code) || /not.?exist|deleted/i.test(code);

/** Turns a service error answer into an ApiError whose message says what to do. */
export function mapServiceError(endpoint: Endpoint, status: number, body: ServiceErrorBody): ApiError {
  const { code, requiredScopes } = body;
  const said = `${status}${code ? ` ${code}` : ''}${body.message ? `: ${body.message}` : ''}`;
  const details = { endpoint, status, serviceCode: code, requestId: body.requestId, requiredScopes };
  const fail = (apiCode: ApiErrorCode, message: string, hint: string): ApiError => new ApiError(apiCode, message, details, { hint });

  if (code === 'workspaceNotExist') {
    return fail('API_NOT_FOUND', `The knowledge base (workspace) is gone or not visible to the operator (${endpoint} answered ${said}).`,
      'Check workspaceId in the configuration (`kbsync workspaces` lists the ones the token and operator can see); if it is right, make sure the operatorId user is a member of it.');
  }
  if (code !== undefined && looksGone(code)) {
    return fail('API_NOT_FOUND', `The document, node or knowledge base is gone (${endpoint} answered ${said}).`,
      'It was deleted on the service or is no longer visible to the operator; if it should exist, check that the operatorId user can open it.');
  }
  if (code === 'InvalidAction.NotFound' || (status === 404 && code === undefined)) {
    return fail('API_INVALID_PATH', `The service has no such API for ${endpoint} (answered ${said}).`,
      'Check baseUrl (the API base address, without /v1.0 or /v2.0) and the /v1.0 vs /v2.0 prefix of the path.');
  }
  if (status === 401) {
    return fail('API_UNAUTHORIZED', `The service rejected the access token on ${endpoint} (answered ${said}).`,
      'The token has expired or is not valid for the /v1.0 and /v2.0 API family: get a new access token and update the configured token source.');
  }
  if (status === 403) {
    if (requiredScopes && requiredScopes.length > 0) {
      return fail('API_FORBIDDEN', `The app lacks the permission scope(s) ${requiredScopes.join(', ')} needed by ${endpoint} (answered ${said}).`,
        `Grant ${requiredScopes.join(', ')} to the app in the developer console, then issue a new access token.`);
    }
    return fail('API_FORBIDDEN', `The service refused ${endpoint} (answered ${said}).`,
      'Check that the app holds the scopes this call needs and that the operatorId user may access this knowledge base.');
  }
  if (code === 'MissingoperatorId') {
    return fail('API_BAD_REQUEST', `The service says operatorId is missing on ${endpoint} (answered ${said}).`,
      "Set operatorId in the configuration to the user's unionId (not the userId).");
  }
  if (code === 'paramError') {
    // The contract's example of a paramError is a userId where the unionId belongs; any other parameter is named in the message.
    const aboutOperator = body.message === undefined || /operator|union|user ?id/i.test(body.message);
    return fail('API_BAD_REQUEST', `The service rejected a parameter of ${endpoint} (answered ${said}).`,
      aboutOperator
        ? "operatorId holds the wrong kind of id: it must be the user's unionId, not the userId."
        : 'The message above names the parameter and what was wrong with it; fix that input (a title, a path, a size) and sync again.');
  }
  if (code === 'Missingcontent') {
    return fail('API_BAD_REQUEST', `The service says the overwrite request is incomplete (answered ${said}).`,
      "overwriteContent needs operatorId (the user's unionId) in both the query and the body, and the content: check operatorId in the configuration.");
  }
  if (code !== undefined && /nameConflict/i.test(code)) {
    return fail('API_CONFLICT', `A node with that name already exists there (${endpoint} answered ${said}).`,
      'Rename the local file or folder, or remove the other node on the service.');
  }
  if (status >= 500) {
    return fail('API_SERVER', `The service failed on ${endpoint} (answered ${said}).`,
      'This is usually temporary: try again in a few minutes.');
  }
  return fail('API_BAD_REQUEST', `The service rejected ${endpoint} (answered ${said}).`,
    'The message above says which input it refused; fix it and try again.');
}
