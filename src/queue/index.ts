export { RequestQueue } from './request-queue.js';
export { QueueClosedError } from './errors.js';
export type { EndpointStats, QueueStats } from './stats.js';
