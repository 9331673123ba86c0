// The ledger's public surface: re-exports only.
export { openLedger, openLedgerBeside, openLedgerSnapshot, type LedgerOptions } from './open.js';
export { Ledger } from './ledger.js';
export { readLockHolder, lockPathOf, type LockStatus } from './lock.js';
export { LEDGER_SCHEMA_VERSION } from './migrations.js';
export type { Retirement } from './retirements.js';
export type { Release } from './releases.js';
export type { SummaryCursor } from './types.js';
export type * from './types.js';
