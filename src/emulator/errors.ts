/**
 * Errors the emulated service answers with. Each maps to one HTTP answer whose JSON body is
 * `{ code, message, requestid }` (plus `extra` fields such as `requiredScopes`); a 429 carries no code.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(status: number, code: string | null, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  body(requestId: string): Record<string, unknown> {
    const base = this.code === null ? {} : { code: this.code };
    return { ...base, message: this.message, requestid: requestId, ...this.extra };
  }
}

export const paramError = (message: string): ServiceError => new ServiceError(400, 'paramError', message);

export const workspaceNotExist = (workspaceId: string): ServiceError =>
  new ServiceError(404, 'workspaceNotExist', `Workspace '${workspaceId}' does not exist or is not visible to the operator.`);

export const nodeNotExist = (nodeId: string, detail = ''): ServiceError =>
  new ServiceError(404, 'nodeNotExist', `Node '${nodeId}' does not exist.${detail ? ` ${detail}` : ''}`);

export const docNotExist = (docKey: string, detail = ''): ServiceError =>
  new ServiceError(404, 'docNotExist', `Document '${docKey}' does not exist.${detail ? ` ${detail}` : ''}`);

export const actionNotFound = (method: string, path: string): ServiceError =>
  new ServiceError(
    404,
    'InvalidAction.NotFound',
    `No such API: ${method} ${path}. Check the version prefix (/v2.0/wiki/... for workspaces and nodes, /v1.0/doc/... for documents) and the path.`,
  );

export const throttled = (endpoint: string): ServiceError =>
  new ServiceError(429, null, `Too many requests to ${endpoint}; retry after 1 second.`);

export const internalError = (message: string): ServiceError => new ServiceError(500, 'InternalError', message);
