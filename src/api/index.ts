export { KbClient, MAX_OVERWRITE_CHARS } from './client.js';
export type { KbClientOptions } from './client.js';
export { DEFAULT_RETRY } from './caller.js';
export type { RetryPolicy } from './caller.js';
export { ENDPOINTS, REPEATABLE } from './endpoints.js';
export type { Endpoint } from './endpoints.js';
export {
  ApiError,
  OutcomeUnknownError,
  isApiError,
  isConflict,
  isForbidden,
  isInvalidPath,
  isNotFound,
  isOutcomeUnknown,
  isThrottled,
  isTransient,
  isUnauthorized,
} from './errors.js';
export type { ApiErrorCode, ApiErrorDetails } from './errors.js';
export { SERVICE_LIMITS } from './limits.js';
export { TreeBounds } from './tree-bounds.js';
export { staticToken } from './token.js';
export type { TokenSource } from './token.js';
export type { CreatedDocument, Member, MemberRole, NodePage, ReadBlocksOptions, RemoteNode, SearchHit, Workspace } from './types.js';
