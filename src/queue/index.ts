export { RequestQueue } from './request-queue.js';
export type { Attempts, DrainResult, Priority, QueueEvents, RequestQueueOptions } from './request-queue.js';
export { KeyedSerializer } from './keyed-serializer.js';
export { QueueClosedError } from './errors.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export type { CallCounts, EndpointStats, QueueStats } from './stats.js';
