// The daemon (kbsync watch): re-exports only.
export { runDaemon } from './daemon.js';
