import { KbsyncError } from '../errors.js';

/** Work offered to a queue that is draining or was closed by a drain deadline. */
export class QueueClosedError extends KbsyncError {
  constructor(message: string) {
    super('QUEUE_CLOSED', message, {
      hint: 'kbsync is shutting down; an operation not sent, or sent without its answer heard, is reconciled and done by the next run.',
    });
  }
}
