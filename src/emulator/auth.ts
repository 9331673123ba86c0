import { paramError, ServiceError } from './errors.js';
import type { Store } from './store/store.js';

/** 401 unless the request carries a token the emulator issued. Returns the token's scopes. */
export function authenticate(store: Store, headerName: string, value: string | string[] | undefined): readonly string[] {
  const token = Array.isArray(value) ? value[0] : value;
  if (!token) {
    throw new ServiceError(401, 'InvalidAuthentication', `The access token is missing: send it in header '${headerName}'.`);
  }
  const scopes = store.scopesOf(token);
  if (!scopes) throw new ServiceError(401, 'InvalidAuthentication', 'The access token is not valid (unknown or expired); get a new one.');
  return scopes;
}

/** 403 naming the scopes the app lacks, at the top level and under `accessdenieddetail` like the gateway. */
export function requireScopes(granted: readonly string[], needed: readonly string[]): void {
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return;
  throw new ServiceError(
    403,
    'Forbidden.AccessDenied.AccessTokenPermissionDenied',
    `The application lacks the permission ${missing.join(', ')}; grant it to the app and get a new token.`,
    { requiredScopes: missing, accessdenieddetail: { requiredScopes: missing } },
  );
}

/** `operatorId` must be a known unionId; a userId in its place is the classic mistake, so it says so. */
export function checkOperator(store: Store, operatorId: string): string {
  if (store.userByUnionId(operatorId)) return operatorId;
  if (store.userByUserId(operatorId)) {
    throw paramError(`operatorId '${operatorId}' is a userId; operatorId must be the user's unionId.`);
  }
  throw paramError(`operatorId '${operatorId}' is not a known user; operatorId must be the user's unionId.`);
}

export const missingOperatorId = (where: string): ServiceError =>
  new ServiceError(400, 'MissingoperatorId', `operatorId is required (${where}); send the user's unionId.`);

export const missingContent = (where: string): ServiceError =>
  new ServiceError(400, 'Missingcontent', `operatorId is missing from the ${where}; overwriteContent needs it in both the query and the body.`);
