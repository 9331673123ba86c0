export { RequestQueue } from './request-queue.js';
export type { Attempts, DrainResult, QueueEvents, RequestQueueOptions } from './request-queue.js';
export { QueueClosedError } from './errors.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export type { CallCounts, EndpointStats, QueueStats } from './stats.js';
