import { hostname } from 'node:os';
import { KbsyncError, SafetyError } from '../errors.js';
import { readLockHolder, type LockStatus } from '../ledger/index.js';

/** True when the lock's holder was started as `kbsync watch` (the lock records its command line). */
export function isDaemon(holder: Pick<LockStatus, 'command'>): boolean {
  return holder.command.split(/\s+/).slice(1).includes('watch');
}

/**
 * Turns "the ledger is locked" into what it means for the user: for `kbsync watch`, that a daemon
 * already runs for this folder (one is enough); for any other command, that a daemon keeps the folder
 * in sync, so there is no need to sync by hand. Any other error is returned as it is.
 */
export function explainLocked(error: unknown, context: { readonly root: string; readonly ledgerPath: string; readonly command: 'watch' | 'other' }): unknown {
  if (!(error instanceof KbsyncError) || error.code !== 'LEDGER_LOCKED') return error;
  const holder = readLockHolder(context.ledgerPath);
  if (!holder) return error;
  const where = holder.hostname === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on host ${holder.hostname}`;
  const stop = holder.hostname === hostname() ? `kill ${holder.pid}, or \`systemctl --user stop kbsync\`` : `stop it on ${holder.hostname}`;
  if (context.command === 'watch') {
    if (!isDaemon(holder)) {
      return new SafetyError('LEDGER_LOCKED', `Another kbsync (${where}: ${holder.command}) is using ${context.root} right now, so kbsync watch did not start.`, {
        hint: 'Start kbsync watch again when it has finished.',
        cause: error,
      });
    }
    return new SafetyError('DAEMON_RUNNING', `kbsync watch is already running for ${context.root} as ${where}.`, {
      hint: `One daemon per folder is enough. To restart it, stop it first (${stop}).`,
      cause: error,
    });
  }
  if (!isDaemon(holder)) return error;
  return new SafetyError('DAEMON_RUNNING', `kbsync watch is running for ${context.root} as ${where} and keeps this folder in sync, so there is no need to sync by hand.`, {
    hint: `Its log shows what it syncs. To run this command anyway, stop the daemon first (${stop}).`,
    cause: error,
  });
}
