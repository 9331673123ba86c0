import { InputError } from '../errors.js';
import type { FaultSpec } from './faults.js';

export type EmulatorOptions = {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** SQLite file; default in-memory. A file-backed emulator survives a restart with the same tokens and ids. */
  readonly statePath?: string;
  /** Requests per second per endpoint, default 20; 0 disables limiting. */
  readonly rateLimit?: number;
  readonly faults?: FaultSpec | string;
  /** Makes generated ids, tokens and fault decisions reproducible. */
  readonly seed?: number;
  /** Default 'x-acs-service-access-token'. */
  readonly tokenHeader?: string;
  /** The emulator's clock is off by this much. */
  readonly clockOffsetMs?: number;
};

export const DEFAULT_TOKEN_HEADER = 'x-acs-service-access-token';
export const DEFAULT_RATE_LIMIT = 20;

const bad = (option: string, value: unknown, rule: string): InputError =>
  new InputError('EMULATOR_BAD_OPTION', `Emulator option ${option} is ${JSON.stringify(value)}; it must be ${rule}.`);

/** Checks options at the boundary, naming the option and the value received. */
export function validateOptions(options: EmulatorOptions): void {
  const { port, rateLimit, seed, tokenHeader, clockOffsetMs } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw bad('port', port, 'an integer from 0 to 65535');
  if (rateLimit !== undefined && (!Number.isFinite(rateLimit) || rateLimit < 0)) throw bad('rateLimit', rateLimit, 'a number >= 0 (0 disables limiting)');
  if (seed !== undefined && !Number.isInteger(seed)) throw bad('seed', seed, 'an integer');
  if (tokenHeader !== undefined && !/^[A-Za-z0-9-]+$/.test(tokenHeader)) throw bad('tokenHeader', tokenHeader, 'an HTTP header name');
  if (clockOffsetMs !== undefined && !Number.isFinite(clockOffsetMs)) throw bad('clockOffsetMs', clockOffsetMs, 'a number of milliseconds');
}
