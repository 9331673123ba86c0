import { constants, promises as fsp } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { homeFolder, type Config } from '../../config/index.js';
import { invocation } from '../../invocation.js';
import { KbsyncError, messageOf, SafetyError } from '../../errors.js';
import { openLedger, readLockHolder, type Ledger, type LockStatus } from '../../ledger/index.js';
import { ACTIVITY_KEY, describeActivity, readActivity } from '../../daemon/activity.js';
import { QUEUE_LENGTH_KEY } from '../../daemon/work-gauge.js';
import { assertNarrowRoot, assertRootDirectorySync } from '../../local/index.js';
import { silentLogger } from '../../log.js';
import { asWorkspaceId } from '../../model/ids.js';
import { explainLocked, isDaemon } from '../../setup/lock-holder.js';
import { ledgerPath } from '../../setup/index.js';
import { assertSameWorkspace } from '../../sync/observe/observe.js';
import type { Checks } from './checks.js';

/** The checks sync makes before it opens its ledger: a root it may use, and that exists. */
export function checkRoot(checks: Checks, config: Config): boolean {
  try {
    assertNarrowRoot(config.root, homeFolder(invocation().env), config.allowBroadRoot);
    assertRootDirectorySync(config.root);
  } catch (error) {
    checks.error('root', error, 'folder');
    return false;
  }
  checks.pass('root', `folder ${config.root} exists`);
  return true;
}

export async function checkStateFolder(checks: Checks, config: Config): Promise<void> {
  const stat = await fsp.stat(config.stateDir).catch(() => undefined);
  const folder = stat ? config.stateDir : config.root;
  try {
    await fsp.access(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    const what = stat ? 'state folder' : 'root folder (the state folder is created in it)';
    // Sync fails the same way when it opens its ledger there.
    checks.fail('state-folder', `${what} ${folder} cannot be written: ${messageOf(error)}`, `Give this user write access (chmod u+rwx "${folder}").`, 'LEDGER_NOT_WRITABLE');
    return;
  }
  if (!stat) checks.pass('state-folder', `state folder ${config.stateDir} will be created by the first sync`);
  else if (!stat.isDirectory()) checks.fail('state-folder', `state folder ${config.stateDir} is not a folder`, 'Move it aside or set stateDir elsewhere.', 'LEDGER_OPEN_FAILED');
  else if ((stat.mode & 0o077) !== 0) checks.warn('state-folder', `state folder ${config.stateDir} can be read by other users (mode ${(stat.mode & 0o777).toString(8)})`, `It holds document text and backups: chmod 700 "${config.stateDir}".`);
  else checks.pass('state-folder', `state folder ${config.stateDir} is private and writable`);
}

/**
 * Who holds the ledger. The daemon (kbsync watch) holding it is the healthy state of a service: a ✓ with its
 * pid and what it is doing. Any other live holder makes sync refuse (LEDGER_LOCKED). Returns the live holder.
 */
function checkLock(checks: Checks, config: Config, file: string): LockStatus | undefined {
  const holder = readLockHolder(file);
  if (!holder) return undefined;
  if (!holder.alive) {
    checks.warn('lock', `ledger lock left by pid ${holder.pid}, which no longer runs`, 'Nothing to do: the next run takes it over.');
    return undefined;
  }
  if (isDaemon(holder)) return holder; // said with what it is doing, once the ledger is open
  const locked = new SafetyError('LEDGER_LOCKED', `The ledger ${file} is in use by pid ${holder.pid} on ${holder.hostname} (${holder.command}), so kbsync sync would be refused now.`, {
    hint: `Wait for it to finish or stop it (kill ${holder.pid}), then try again. \`kbsync status\` works meanwhile.`,
  });
  checks.error('lock', explainLocked(locked, { root: config.root, ledgerPath: file, command: 'other' }), 'ledger lock');
  return holder;
}

/** The running daemon, as a check: healthy while its cycles go through (a failing one is a warning: its log says why). */
function checkDaemon(checks: Checks, holder: LockStatus, ledger: Ledger | undefined): void {
  const activity = readActivity(ledger?.meta.get(ACTIVITY_KEY));
  const waiting = ledger?.meta.get(QUEUE_LENGTH_KEY);
  const doing = describeActivity(activity, typeof waiting === 'number' ? waiting : 0, Date.now());
  const where = `kbsync watch runs for this folder (pid ${holder.pid}${holder.hostname === hostname() ? '' : ` on ${holder.hostname}`}, since ${new Date(holder.startedAt).toISOString()}): ${doing}`;
  if (activity?.failed) checks.warn('daemon', where, `Its log (journalctl --user -u kbsync, or the terminal it runs in) says what failed; the checks below look at the same things.`);
  else checks.pass('daemon', where);
}

export function checkLedger(checks: Checks, config: Config): void {
  const file = ledgerPath(config);
  const holder = checkLock(checks, config, file);
  const daemon = holder && isDaemon(holder) ? holder : undefined;
  let ledger: Ledger;
  try {
    ledger = openLedger(file, { readonly: true, lock: false, logger: silentLogger });
  } catch (error) {
    if (daemon) checkDaemon(checks, daemon, undefined);
    const code = error instanceof KbsyncError ? error.code : undefined;
    if (code === 'LEDGER_MISSING') return checks.pass('ledger', 'ledger: none yet (nothing synced with this config)');
    if (code === 'LEDGER_OUTDATED') return checks.pass('ledger', `ledger ${path.relative(config.root, file)} is from an older kbsync: the next sync upgrades it`);
    // Damaged, not kbsync's, or from a newer kbsync: sync refuses it with this very error.
    return checks.error('ledger', error, 'ledger');
  }
  try {
    if (daemon) checkDaemon(checks, daemon, ledger);
    checks.pass('ledger', `ledger ${path.relative(config.root, file)}: ${ledger.documents.count()} document(s) synced`);
    try {
      assertSameWorkspace(ledger, asWorkspaceId(config.workspaceId), false);
    } catch (error) {
      checks.error('ledger-workspace', error, 'ledger');
    }
    // Beside a running daemon, open operations are its work in progress, not an interrupted run's.
    const intents = holder ? [] : ledger.intents.open();
    if (intents.length > 0) checks.warn('intents', `${intents.length} interrupted operation(s) (${intents.map((i) => `${i.kind} ${i.subject}`).join(', ')})`, 'Run `kbsync sync`: it finishes them before anything else.');
  } finally {
    ledger.close();
  }
}
