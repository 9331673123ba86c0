export { KbClient } from './client.js';
export type { KbClientOptions } from './client.js';
export {
  ApiError,
  OutcomeUnknownError,
  isApiError,
  isConflict,
  isForbidden,
  isNotFound,
  isOutcomeUnknown,
  isThrottled,
  isUnauthorized,
} from './errors.js';
export { TreeBounds } from './tree-bounds.js';
export { staticToken } from './token.js';
export type { TokenSource } from './token.js';
export type { RemoteNode, SearchHit, Workspace } from './types.js';
