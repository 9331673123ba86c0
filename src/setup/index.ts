// From a configuration to the things a run works with (client, ledger, sync options): shared by the CLI
// and the daemon, so neither imports the other. Re-exports only.
export { createServiceClient, type ServiceSettings } from './service-client.js';
export { ledgerPath, openStateLedger, siteOf, syncOptionsOf } from './state.js';
export { explainLocked, isDaemon } from './lock-holder.js';
