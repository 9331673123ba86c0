// Public programmatic API: re-exports only.
export * from './errors.js';
export * from './model/ids.js';
export type * from './model/blocks.js';
