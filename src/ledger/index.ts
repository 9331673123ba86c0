// The ledger's public surface: re-exports only.
export { openLedger, openLedgerBeside, openLedgerSnapshot, type LedgerOptions } from './open.js';
export { Ledger } from './ledger.js';
export { readLockHolder, lockPathOf, type LockStatus } from './lock.js';
export { LEDGER_SCHEMA_VERSION } from './migrations.js';
export type { DocumentsRepo } from './documents.js';
export type { FoldersRepo } from './folders.js';
export type { IntentsJournal } from './intents.js';
export type { MetaStore } from './meta.js';
export type { RetirementsRepo, Retirement } from './retirements.js';
export type { ReleasesRepo, Release } from './releases.js';
export type { SettledTreeStore } from './settled-tree.js';
export type * from './types.js';
