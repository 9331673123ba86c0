// Public programmatic API: re-exports only. The emulator is a separate entry point (`kbsync/emulator`)
// so that the daemon's code path never loads it.
export * from './errors.js';
export * from './model/ids.js';
export type * from './model/blocks.js';
export { ENDPOINTS, type EndpointName } from './model/endpoints.js';
export { KbClient, ApiError, OutcomeUnknownError, staticToken, type KbClientOptions, type TokenSource, type RemoteNode, type Workspace } from './api/index.js';
export { RequestQueue, type QueueStats } from './queue/index.js';
export { openLedger, Ledger, type DocumentRecord, type DocumentSummary } from './ledger/index.js';
export { loadConfig, createTokenSource, type Config } from './config/index.js';
export { parseDocument, outline, blocksToMarkdown, merge3, align, toPushMarkdown, type MergeResult } from './markdown/index.js';
export { resolveLink, createLinker, headingAnchors, type LinkOutcome, type LinkProblem, type LinkSite, type LinkTree, type Linker } from './links/index.js';
export { scanLocal, safeName, fileNameForTitle, writeFileAtomic, type LocalScan } from './local/index.js';
export { runSync, type SyncOptions, type SyncDeps } from './sync/engine.js';
export { plan } from './sync/decide/plan.js';
export type { SyncReport } from './sync/views/report.js';
export type { Action, Plan, PlanInput, SyncMode, Layout } from './sync/decide/types.js';
export { runDaemon } from './daemon/index.js';
