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
  /** Calls per document (the docKey in the request path), kept apart so CallStats stays the service-wide view. */
  #byDocument = new Map<string, Partial<Record<EndpointName, number>>>();

  call(endpoint: EndpointName, docKey?: string): void {
    this.#stats.total++;
    this.#stats.byEndpoint[endpoint].calls++;
    if (docKey !== undefined) {
      const counts = this.#byDocument.get(docKey) ?? {};
      counts[endpoint] = (counts[endpoint] ?? 0) + 1;
      this.#byDocument.set(docKey, counts);
    }
  }

  /** Calls made to one document's body endpoints (those with a docKey in their path), by endpoint. */
  onDocument(docKey: string): Partial<Record<EndpointName, number>> {
    return { ...this.#byDocument.get(docKey) };
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
    this.#byDocument.clear();
  }
}
