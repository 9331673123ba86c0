import type { CallCounter } from '../calls.js';
import type { EndpointName } from '../endpoints.js';
import type { FaultInjector } from '../faults.js';
import type { Operations } from '../operations.js';
import type { Scope } from '../scopes.js';
import type { Store } from '../store/store.js';

export type RouteContext = {
  readonly ops: Operations;
  readonly store: Store;
  readonly faults: FaultInjector;
  readonly counter: CallCounter;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Readonly<Record<string, unknown>>;
  /** The checked unionId of the acting user. */
  readonly operatorId: string;
  readonly baseUrl: string;
};

/** Where the contract wants `operatorId`: query, body, or (overwrite only) both. */
export type OperatorPlacement = 'query' | 'body' | 'both';

export type Route = {
  readonly name: EndpointName;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with `:param` segments, e.g. `/v2.0/wiki/workspaces/:workspaceId`. */
  readonly path: string;
  readonly scopes: readonly Scope[];
  readonly operatorIn: OperatorPlacement;
  /** Returns the JSON body of the 200 answer, or throws a ServiceError. */
  handle(ctx: RouteContext): unknown;
};
