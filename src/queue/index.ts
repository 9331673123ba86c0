export { RequestQueue } from './request-queue.js';
export type { EndpointStats, QueueStats } from './stats.js';
