/** Stable endpoint names: keys for call counts, rate limits and fault targeting (shared with the client). */
export { ENDPOINTS, isEndpointName, type EndpointName } from '../model/endpoints.js';
