import { ENDPOINTS, type EndpointName } from './endpoints.js';
import type { FaultAction } from './faults.js';

export type FaultKind = FaultAction | 'latency' | 'listFailPage';
export type EndpointCalls = { calls: number; throttled: number; faults: number };
/** Counts of service calls (admin and web-view requests are not counted). `calls` includes throttled ones. */
export type CallStats = {
  total: number;
  throttled: number;
  faults: number;
  /** Requests to paths that are no endpoint (404 InvalidAction.NotFound). */
  notFound: number;
  byEndpoint: Record<EndpointName, EndpointCalls>;
  faultsByKind: Record<FaultKind, number>;
};

const FAULT_KINDS: readonly FaultKind[] = ['reset', 'throttle429', 'qps403', 'error5xx', 'drop', 'latency', 'listFailPage'];

function emptyStats(): CallStats {
  return {
    total: 0,
    throttled: 0,
    faults: 0,
    notFound: 0,
    byEndpoint: Object.fromEntries(ENDPOINTS.map((name) => [name, { calls: 0, throttled: 0, faults: 0 }])) as Record<EndpointName, EndpointCalls>,
    faultsByKind: Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>,
  };
}

export class CallCounter {
  #stats = emptyStats();

  call(endpoint: EndpointName): void {
    this.#stats.total++;
    this.#stats.byEndpoint[endpoint].calls++;
  }

  throttled(endpoint: EndpointName): void {
    this.#stats.throttled++;
    this.#stats.byEndpoint[endpoint].throttled++;
  }

  fault(endpoint: EndpointName, kind: FaultKind): void {
    this.#stats.faults++;
    this.#stats.faultsByKind[kind]++;
    this.#stats.byEndpoint[endpoint].faults++;
  }

  notFound(): void {
    this.#stats.notFound++;
  }

  /** A deep copy, so a caller's snapshot does not move. */
  snapshot(): CallStats {
    return structuredClone(this.#stats);
  }

  reset(): void {
    this.#stats = emptyStats();
  }
}
